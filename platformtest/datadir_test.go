package platformtest_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

const restartTemplate = `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: v, name: V, dataType: numeric}
`

// TestRestartKeepsIdentities: a device program connected to a platform
// with a data folder reconnects by itself to the platform started again
// on the same folder and port, with the credentials it has (rotated once),
// and carries on: its subscription is restored and it publishes.
func TestRestartKeepsIdentities(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dir := filepath.Join(t.TempDir(), "data")
	p1, err := platformtest.Start(platformtest.WithDataDir(dir))
	if err != nil {
		t.Fatal(err)
	}
	d := p1.AddDevice("press-1")
	a := p1.AddApp("sensors", restartTemplate)
	in := p1.Install(d, a, platformtest.Dev)
	in.Rotate() // epoch 2: the device's credential is not the first one
	env := in.Env()

	states := make(chan client.State, 16)
	events := make(chan *client.Event, 4)
	c, err := client.New(client.WithEnv(env), client.WithReconnectBackoff(20*time.Millisecond, 100*time.Millisecond),
		client.WithStateHandler(func(s client.State) { states <- s }))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop(context.Background()) }()
	if _, err := c.Subscribe(ctx, "com.example.cmd", func(_ context.Context, ev *client.Event) { events <- ev }); err != nil {
		t.Fatal(err)
	}
	addr := strings.TrimPrefix(p1.HTTPURL(), "http://")
	p1.Close()
	waitState(ctx, t, states, client.StateReconnecting)

	p2, err := platformtest.Start(platformtest.WithDataDir(dir), platformtest.WithAddr(addr))
	if err != nil {
		t.Fatal(err)
	}
	defer p2.Close()
	in2 := p2.InstallationOf(d.Key(), a.Key(), platformtest.Dev)
	if in2 == nil {
		t.Fatal("the installation is gone after the restart")
	}
	for k, v := range env {
		if got := in2.Env()[k]; got != v {
			t.Errorf("%s = %q after the restart, was %q", k, got, v)
		}
	}
	waitState(ctx, t, states, client.StateConnected)
	if err := p2.WaitSessions(ctx, in2.Realm(), 1); err != nil {
		t.Fatal(err)
	}
	log := p2.AuthLog()
	if len(log) == 0 || !log[len(log)-1].Admitted || !strings.Contains(log[len(log)-1].AuthID, "-e2@") {
		t.Errorf("auth log after the restart: %+v", log)
	}
	if err := c.Publish(ctx, "com.example.seen", 1); err != nil {
		t.Errorf("publish after the restart: %v", err)
	}
	// The subscription was restored: a publication of another session of
	// the realm reaches it.
	other, err := client.New(client.WithEnv(in2.Env()))
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Stop(context.Background()) }()
	if err := other.Publish(ctx, "com.example.cmd", "go"); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-events:
		if len(ev.Args) != 1 || ev.Args[0] != "go" {
			t.Errorf("event %+v", ev)
		}
	case <-ctx.Done():
		t.Fatal("the restored subscription got no event")
	}
}

func waitState(ctx context.Context, t *testing.T, states <-chan client.State, want client.State) {
	t.Helper()
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-ctx.Done():
			t.Fatalf("the client never reached %s", want)
		}
	}
}

// TestDataDirInUse: a second platform on a held folder does not start.
func TestDataDirInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	platformtest.New(t, platformtest.WithDataDir(dir))
	_, err := platformtest.Start(platformtest.WithDataDir(dir))
	want := fmt.Sprintf("%s is in use by flockd pid %d", dir, os.Getpid())
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("second start: %v, want %q", err, want)
	}
}

// TestDataDirRefusals: a truncated registry, a damaged record and a
// folder of a newer format are refused at start and by CheckDataDir,
// naming the folder, the file and what is wrong; a good folder checks.
func TestDataDirRefusals(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	p := platformtest.New(t, platformtest.WithDataDir(dir))
	for i := range 40 {
		p.AddDevice(fmt.Sprintf("press-%02d", i))
	}
	p.Close()
	rep, err := platformtest.CheckDataDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range rep.Files {
		names = append(names, f.Name)
	}
	if rep.Devices != 40 || rep.Projects != 1 || !slices.Equal(names, []string{"files.db", "fleet.db", "registry.db"}) || rep.Format != rep.Current {
		t.Errorf("report %+v", rep)
	}

	path := filepath.Join(dir, "registry.db")
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		damage func([]byte) []byte
		want   string
	}{
		"truncated": {func(b []byte) []byte { return b[:3*4096] }, "registry.db: truncated: the file holds 12288 bytes"},
		"record": {func(b []byte) []byte {
			// Every copy: bbolt's free pages may hold older ones.
			return bytes.ReplaceAll(b, []byte(`"name":"press-07"`), []byte(`"name":"press-0X"`))
		}, `registry.db: bucket device: key "8": checksum mismatch`},
	} {
		t.Run(name, func(t *testing.T) {
			if err := os.WriteFile(path, tc.damage(good), 0o600); err != nil {
				t.Fatal(err)
			}
			p, err := platformtest.Start(platformtest.WithDataDir(dir))
			if err == nil {
				p.Close()
			}
			if err == nil || !strings.Contains(err.Error(), dir+": "+tc.want) || !strings.Contains(err.Error(), "neither reset nor served") {
				t.Errorf("start: %v, want %q", err, tc.want)
			}
			if _, err := platformtest.CheckDataDir(dir); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("check: %v", err)
			}
		})
	}

	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "FORMAT"), []byte("flockd data folder format 99\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = platformtest.Start(platformtest.WithDataDir(dir))
	if err == nil || !strings.Contains(err.Error(), "written by data folder format 99; this flockd reads format 2 and older") {
		t.Errorf("newer format: %v", err)
	}
}
