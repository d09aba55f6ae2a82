// Package footprinttest checks that a program of the footprint comparison
// really does the job (package footprint): it runs the program's run
// function against the fake platform and inspects what arrived.
package footprinttest

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// DataTemplate declares the table the programs append to and read.
const DataTemplate = `data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Timestamp, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
        - {id: source, name: Source, dataType: string}
`

// Run is a program's job: it runs with the device environment env, prints
// "ready" on out once done and serves its device function until ctx ends.
type Run func(ctx context.Context, out io.Writer, env map[string]string) error

// CheckJob runs run as the device of an installation and checks the job:
// "ready" printed, the publication of the reading with the device
// metadata, the row appended to sensordata, the device function echo
// answering another device, and run returning nil without leaking
// goroutines once ctx ends.
func CheckJob(t *testing.T, run Run) {
	leakcheck.Check(t)
	p := platformtest.New(t)
	app := p.AddApp("footprint", DataTemplate)
	dev := p.Install(p.AddDevice("dev"), app, platformtest.Dev)
	other := p.Install(p.AddDevice("other"), app, platformtest.Dev)
	env := dev.Env()
	env["IRONFLOCK_ENV_DIR"] = t.TempDir() // no agent files: the credential comes from env

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := run(ctx, pw, env)
		pw.Close()
		done <- err
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if line != "ready\n" {
		cancel()
		t.Fatalf("the program printed %q (%v), want ready; run: %v", line, err, <-done)
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()

	serial := env["DEVICE_SERIAL_NUMBER"]
	wantMeta := map[string]any{"DEVICE_SERIAL_NUMBER": serial, "DEVICE_KEY": env["DEVICE_KEY"], "DEVICE_NAME": env["DEVICE_NAME"]}
	var pubs int
	for _, m := range p.Publications() {
		if m.URI != "com.example.readings" || m.AuthID != serial {
			continue
		}
		pubs++
		row, _ := m.Args[0].(map[string]any)
		if len(m.Args) != 1 || row["temperature"] != 21.5 || row["source"] != "footprint" {
			t.Errorf("publication args %v", m.Args)
		}
		if diff := cmp.Diff(wantMeta, m.Kwargs); diff != "" {
			t.Errorf("publication kwargs (-want +got):\n%s", diff)
		}
	}
	if pubs != 1 {
		t.Errorf("%d publications on com.example.readings, want 1", pubs)
	}
	rows := p.TableRows(dev.Realm(), "sensordata")
	if len(rows) != 1 || rows[0]["source"] != "footprint" || rows[0]["temperature"] != 21.5 {
		t.Errorf("sensordata rows %v, want the one appended", rows)
	}

	caller := clienttest.Start(t, other)
	key, _ := strconv.Atoi(env["DEVICE_KEY"])
	res, err := caller.CallDeviceFunction(ctx, key, "echo", "ping", int64(7))
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if diff := cmp.Diff([]any{"ping", int64(7)}, res.Args); diff != "" {
		t.Errorf("echo answered (-want +got):\n%s", diff)
	}

	cancel()
	if err := <-done; err != nil {
		t.Errorf("run = %v, want nil once ctx ended", err)
	}
}
