//go:build interop

// This file holds the trace interop check (issue 36): an SDK client with
// trace propagation publishes to and calls autobahn-js and autobahn-python
// (scripts/*/trace.*) through the platform, whose EVENT and INVOCATION
// details then carry _traceparent and _tracestate (docs/wire.md §13); both
// must take them like any other message, and their own publications and
// calls must reach the SDK's handlers. It needs node with scripts/
// autobahn-js's npm install and python3 with autobahn and msgpack
// ($FLOCKBENCH_PYTHON names another interpreter):
//
//	go test -tags interop -run TestTraceInterop ./cmd/flockbench/

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

type probeTraceKey struct{}

// probePropagator sends the traceparent its ctx holds, with a fixed
// tracestate.
type probePropagator struct{}

func (probePropagator) Inject(ctx context.Context) (string, string) {
	p, _ := ctx.Value(probeTraceKey{}).(string)
	return p, "vendor=probe"
}

func (probePropagator) Extract(ctx context.Context, p, _ string) context.Context {
	return context.WithValue(ctx, probeTraceKey{}, p)
}

const probeTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func TestTraceInterop(t *testing.T) {
	py := os.Getenv("FLOCKBENCH_PYTHON")
	if py == "" {
		py = "python3"
	}
	for _, probe := range []struct {
		name string
		cmd  []string
		raw  bool // it prints the details as received
	}{
		{"autobahn-js/msgpack", []string{"node", "--experimental-websocket", "trace.js", "msgpack"}, false},
		{"autobahn-js/json", []string{"node", "--experimental-websocket", "trace.js", "json"}, false},
		{"autobahn-python/msgpack", []string{py, "trace.py", "msgpack"}, true},
		{"autobahn-python/json", []string{py, "trace.py", "json"}, true},
	} {
		t.Run(probe.name, func(t *testing.T) {
			dir := filepath.Join("scripts", filepath.Dir(probe.name))
			traceProbe(t, dir, probe.cmd, probe.raw)
		})
	}
}

func traceProbe(t *testing.T, dir string, cmdline []string, raw bool) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	quiet := slog.New(slog.DiscardHandler)
	p := platformtest.New(t, platformtest.WithLogger(quiet), platformtest.WithoutRecording())
	pr := p.AddProject("plant", platformtest.Key(2))
	app := p.AddApp("probe", "", platformtest.Key(26))
	ia := p.Install(pr.AddDevice("sdk", platformtest.Key(42)), app, platformtest.Dev)
	ib := p.Install(pr.AddDevice("autobahn", platformtest.Key(43)), app, platformtest.Dev)
	id, secret := ib.Credentials()
	cmd := exec.CommandContext(ctx, cmdline[0], cmdline[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PROBE_URL="+p.URL(), "PROBE_REALM="+ib.Realm(), "PROBE_AUTHID="+id, "PROBE_SECRET="+secret,
		"PROBE_TOPIC=com.example.traced", "PROBE_PROC=2.43.26.DEV.echo", "PROBE_BACK=com.example.back", "PROBE_SDKPROC=2.42.26.DEV.sdkecho")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("%v: %v", cmdline, err)
	}
	defer func() { _ = in.Close(); _ = cmd.Wait() }()

	c, err := client.New(client.WithEnv(ia.Env()), client.WithTracePropagation(probePropagator{}), client.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Stop(context.Background()) }()
	back := make(chan string, 2)
	if _, err := c.Subscribe(ctx, "com.example.back", func(_ context.Context, ev *client.Event) {
		back <- fmt.Sprint("event ", ev.Args)
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RegisterDeviceFunction(ctx, "sdkecho", func(_ context.Context, inv *client.Invocation) (any, error) {
		back <- fmt.Sprint("invocation ", inv.Args)
		return inv.Args[0], nil
	}); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(out)
	next := func() map[string]any {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("%v ended: %v", cmdline, sc.Err())
		}
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%v said %q", cmdline, sc.Text())
		}
		return m
	}
	if m := next(); m["ready"] != true {
		t.Fatalf("%v did not get ready: %v", cmdline, m)
	}

	tctx := context.WithValue(ctx, probeTraceKey{}, probeTraceparent)
	if err := c.Publish(tctx, "com.example.traced", map[string]any{"n": 1}); err != nil {
		t.Fatal(err)
	}
	ev := next()
	res, err := c.CallDeviceFunction(tctx, 43, "echo", map[string]any{"n": 2})
	if err != nil {
		t.Fatal(err)
	}
	inv := next()
	for _, got := range []struct {
		m    map[string]any
		kind string
		args string
	}{{ev, "event", "[map[n:1]]"}, {inv, "invocation", "[map[n:2]]"}} {
		if got.m["kind"] != got.kind || fmt.Sprint(got.m["args"]) != got.args {
			t.Errorf("the %s came as %v, want arguments %s", got.kind, got.m, got.args)
		}
		if d, _ := got.m["raw_details"].(map[string]any); raw && (d["_traceparent"] != probeTraceparent || d["_tracestate"] != "vendor=probe") {
			t.Errorf("the %s's details on the wire: %v, want the trace keys", got.kind, d)
		}
	}
	if fmt.Sprint(res.Args) != "[map[n:2]]" {
		t.Errorf("the call's result: %v", res.Args)
	}

	if _, err := fmt.Fprintln(in, "go"); err != nil {
		t.Fatal(err)
	}
	if m := next(); m["ok"] != true {
		t.Fatalf("%v's publication and call to the SDK: %v", cmdline, m)
	}
	got := map[string]bool{}
	for range 2 {
		select {
		case s := <-back:
			got[s] = true
		case <-ctx.Done():
			t.Fatalf("the SDK's handlers got %v", got)
		}
	}
	if len(got) != 2 {
		t.Errorf("the SDK's handlers got %v", got)
	}
}
