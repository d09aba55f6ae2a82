package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// serveWithPlatform runs flockd with args until the test ends and returns
// its platform.
func serveWithPlatform(t *testing.T, args ...string) *platformtest.Platform {
	t.Helper()
	got := make(chan *platformtest.Platform, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-listen", "127.0.0.1:0"}, inMemory(args)...), io.Discard, io.Discard,
			func(p *platformtest.Platform) { got <- p })
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})
	var p *platformtest.Platform
	select {
	case p = <-got:
	case err := <-done:
		t.Fatalf("flockd ended early: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("flockd not ready")
	}
	return p
}

// publishSome joins the demo's first installation and publishes n
// acknowledged events.
func publishSome(t *testing.T, p *platformtest.Platform, n int) {
	t.Helper()
	in := p.InstallationOf(1, 1, platformtest.Dev)
	c := joinWithEnv(t, p.URL(), in.Env())
	for i := range n {
		if err := c.Publish("com.example.seq", wamp.Dict{wire.OptAcknowledge: true}, wamp.List{i}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// TestRecordFlags: -record-messages bounds the recording, -no-record
// turns it off.
func TestRecordFlags(t *testing.T) {
	p := serveWithPlatform(t, "-record-messages", "2")
	publishSome(t, p, 5)
	if got := p.Publications(); len(got) != 2 || got[0].Args[0] != int64(3) {
		t.Errorf("-record-messages 2 kept %v", got)
	}
	p = serveWithPlatform(t, "-no-record")
	publishSome(t, p, 3)
	if got := p.Recorded(); len(got) != 0 {
		t.Errorf("-no-record kept %d messages", len(got))
	}
}

// TestStrictAuthFlag: with -strict-auth the legacy credential (serial,
// serial) cannot join; the per-app credential can.
func TestStrictAuthFlag(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			var args []string
			if strict {
				args = append(args, "-strict-auth")
			}
			p := serveWithPlatform(t, args...)
			env := p.InstallationOf(1, 1, platformtest.Dev).Env()
			serial := env[wire.EnvSerialNumber]
			swarm, _ := strconv.Atoi(env[wire.EnvSwarmKey])
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			c, err := client.ConnectNet(ctx, p.URL(), client.Config{
				Realm:        wire.Realm(swarm, 1, env[wire.EnvStage]),
				HelloDetails: wamp.Dict{"authid": serial},
				AuthHandlers: map[string]client.AuthFunc{"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
					return crsign.RespondChallenge(serial, c, nil), wamp.Dict{}
				}},
				Serialization: client.MSGPACK,
				Logger:        log.New(io.Discard, "", 0),
			})
			if c != nil {
				_ = c.Close()
			}
			if strict && err == nil {
				t.Error("legacy credential joined with -strict-auth")
			}
			if !strict && err != nil {
				t.Errorf("legacy credential refused by default: %v", err)
			}
			joinWithEnv(t, p.URL(), env)
		})
	}
}

// TestServeGrants: the grants: section of the config lets a consumer join
// its provider's realm as a reader.
func TestServeGrants(t *testing.T) {
	dir := t.TempDir()
	config := filepath.Join(dir, "flockd.yml")
	err := os.WriteFile(config, []byte(`projects:
  - name: demo
    swarm_key: 1
    devices: [{name: d1, device_key: 1}, {name: d2, device_key: 2}]
apps:
  - name: sensors
    app_key: 10
    data_template: |
      data:
        tables:
          - tablename: readings
            columns: [{id: tsp, dataType: timestamp}]
  - name: dashboard
    app_key: 11
    data_template: |
      data:
        tables: []
      consumes:
        - app: sensors
installations:
  - {project: demo, device: d1, app: sensors}
  - {project: demo, device: d2, app: dashboard}
grants:
  - {project: demo, consumer: dashboard, provider: sensors}
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	p := serveWithPlatform(t, "-config", config)
	if g := p.Grants(); len(g) != 1 || g[0] != (platformtest.Grant{Project: "demo", Consumer: "dashboard", Provider: "sensors"}) {
		t.Fatalf("grants %+v", g)
	}
	env := p.InstallationOf(2, 11, platformtest.Dev).Env()
	env[wire.EnvAppKey] = "10" // join the provider's realm with the consumer's credential
	c := joinWithEnv(t, p.URL(), env)
	if role := c.RealmDetails()["authrole"]; role != wire.RoleAppReader {
		t.Errorf("role %v, want app_reader", role)
	}
}
