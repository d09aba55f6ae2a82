// This file holds the tests of the benchmark's pieces: every client in
// every scenario for a fixed number of operations against an in-process
// platform provisioned from flockbench's own flockd configuration, with
// the callee in a child process as in a real run.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// testRoleVar makes the test binary, started as a child by a test, play
// a role instead of running tests: "flockd" (fakeFlockd) or "program"
// (testProgram).
const testRoleVar = "FLOCKBENCH_TEST_ROLE"

func TestMain(m *testing.M) {
	// The callee child process: startCallee runs os.Executable() -callee,
	// which in a test is this binary.
	if os.Getenv(calleeEnvVar) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := calleeMain(ctx, os.Stdin, os.Stdout)
		stop()
		exitOn(err)
	}
	// The bare nexus router of -router: startNexus runs os.Executable()
	// -nexus-router (it inherits the flockd role too, so first).
	if os.Getenv(nexusEnvVar) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := nexusRouterMain(ctx, os.Stdin, os.Stdout)
		stop()
		exitOn(err)
	}
	if os.Getenv(driverEnvVar) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := driverMain(ctx, os.Stdin, os.Stdout)
		stop()
		exitOn(err)
	}
	if os.Getenv(subscriberEnvVar) != "" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := subscriberMain(ctx, os.Stdin, os.Stdout)
		stop()
		exitOn(err)
	}
	if os.Getenv(testRoleVar) == "program" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := testProgram(ctx)
		stop()
		exitOn(err)
	}
	if os.Getenv(testRoleVar) == "flockd" {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		err := fakeFlockd(ctx, os.Args[1:])
		stop()
		exitOn(err)
	}
	os.Exit(m.Run())
}

func exitOn(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// testFleet starts a platform in the test, provisioned from flockdConfig,
// and returns it with the fleet flockd would describe.
func testFleet(t *testing.T) (*platformtest.Platform, *fleet) {
	t.Helper()
	p := platformtest.New(t, platformtest.WithRecording(0, 0))
	f, err := provision(p, []byte(flockdConfig))
	if err != nil {
		t.Fatal(err)
	}
	return p, f
}

// provision applies a flockd configuration to p and returns the fleet.
func provision(p *platformtest.Platform, config []byte) (*fleet, error) {
	seed, err := platformtest.ParseSeed(config, ".")
	if err != nil {
		return nil, err
	}
	res, err := p.Apply(seed)
	if err != nil {
		return nil, err
	}
	if len(res.Installations) != 2 {
		return nil, fmt.Errorf("%d installations, want 2", len(res.Installations))
	}
	return &fleet{WSURL: p.URL(), HTTPURL: p.HTTPURL(), Caller: res.Installations[0].Env(), Callee: res.Installations[1].Env()}, nil
}

// TestEveryClientEveryScenario runs each client in each scenario for a
// fixed number of operations and checks that each operation reached the
// router (publications and calls recorded), was answered (the callee's
// results, the router's acknowledgements: an operation counts only once
// its reply came) and carried the same payload whatever the client.
func TestEveryClientEveryScenario(t *testing.T) {
	leakcheck.Check(t)
	p, f := testFleet(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cp, proc, err := startCallee(ctx, f.Callee)
	if err != nil {
		t.Fatal(err)
	}
	defer cp.stop()
	d, err := startDriver(ctx, f.WSURL, f.Callee)
	if err != nil {
		t.Fatal(err)
	}
	defer d.stop()
	tg := target{Fleet: f, Procedure: proc, Driver: d}

	const n = 200
	rs, err := bench(ctx, tg, scenarios, clientKinds, 1, io.Discard, func(ctx context.Context, w *workload, sc scenario) (sample, error) {
		return runCount(ctx, w, sc, n)
	})
	if err != nil {
		t.Fatal(err)
	}
	perScenario := map[string]int{}
	for _, r := range rs {
		if r.Ops != n {
			t.Errorf("%s %s: %d operations completed, want %d", r.Scenario, r.Client, r.Ops, n)
		}
		if r.CPUMicros <= 0 || r.OpsPerSec <= 0 || r.AllocsPerOp <= 0 {
			t.Errorf("%s %s: figures not measured: %+v", r.Scenario, r.Client, r)
		}
		perScenario[r.Scenario]++
	}
	// sdk-hooks runs every scenario but the serve ones.
	want := map[string]int{"pub1": 4, "pub16": 5, "call1": 5, "call16": 6, "call1-json": 5, "call16-json": 6,
		"serve1": 3, "serve16": 3, "serve1-json": 3, "serve16-json": 3}
	if diff := cmp.Diff(want, perScenario); diff != "" {
		t.Errorf("clients per scenario (-want +got):\n%s", diff)
	}

	serveProc, err := serveProcedure(f.Caller)
	if err != nil {
		t.Fatal(err)
	}
	var pubs, calls, served []platformtest.Message
	for _, m := range p.Publications() {
		if m.URI == benchTopic {
			pubs = append(pubs, m)
		}
	}
	for _, m := range p.Calls() {
		switch m.URI {
		case proc:
			calls = append(calls, m)
		case serveProc:
			served = append(served, m)
		}
	}
	if got, want := len(pubs), n*(want["pub1"]+want["pub16"]); got != want {
		t.Errorf("router saw %d publications, want %d", got, want)
	}
	if got, want := len(calls), n*(want["call1"]+want["call16"]+want["call1-json"]+want["call16-json"]); got != want {
		t.Errorf("router saw %d calls, want %d", got, want)
	}
	// The driver may have had calls in flight when a serve run stopped.
	if got, want := len(served), n*(want["serve1"]+want["serve16"]+want["serve1-json"]+want["serve16-json"]); got < want {
		t.Errorf("router saw %d calls of the serve scenarios, want %d at least", got, want)
	}
	samePayload(t, "publication", pubs)
	samePayload(t, "call", calls)
}

// samePayload checks that every message carries the first one's
// arguments and options: the SDK's (it runs first) is the reference.
func samePayload(t *testing.T, what string, ms []platformtest.Message) {
	t.Helper()
	if len(ms) == 0 {
		return
	}
	type payload struct {
		Args    []any
		Kwargs  map[string]any
		Options map[string]any
	}
	ref := payload{ms[0].Args, ms[0].Kwargs, ms[0].Options}
	if len(ref.Args) != 1 {
		t.Fatalf("%s: reference args %v, want the row", what, ref.Args)
	}
	for i, m := range ms[1:] {
		if diff := cmp.Diff(ref, payload{m.Args, m.Kwargs, m.Options}); diff != "" {
			t.Fatalf("%s %d differs from the SDK's (-sdk +got):\n%s", what, i+1, diff)
		}
	}
}

// TestStartFlockd starts a flockd stand-in (this test binary serving a
// platform with flockd's flags and environment file) as flockbench
// starts flockd, runs a publish through it, and checks that stop ends
// the process and removes its directory.
func TestStartFlockd(t *testing.T) {
	leakcheck.Check(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testRoleVar, "flockd")
	p, f, err := startFlockd(context.Background(), exe)
	if err != nil {
		t.Fatal(err)
	}
	w, err := openFloor(context.Background(), target{Fleet: f}, scenarios[0])
	if err != nil {
		p.stop()
		t.Fatal(err)
	}
	s, err := runCount(context.Background(), w, scenarios[0], 10)
	w.close()
	p.stop()
	if err != nil || s.Ops != 10 {
		t.Errorf("publish through the started flockd: %d operations, %v", s.Ops, err)
	}
	select {
	case <-p.done:
	default:
		t.Error("flockd still running after stop")
	}
	if _, err := os.Stat(p.dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("directory %s left behind: %v", p.dir, err)
	}
}

// TestStartFlockdExitsEarly checks that a flockd that exits at once is
// reported with its log, not waited for.
func TestStartFlockdExitsEarly(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testRoleVar, "flockd")
	t.Setenv("FLOCKBENCH_TEST_FAIL", "config rejected")
	_, _, err = startFlockd(context.Background(), exe)
	if err == nil {
		t.Fatal("no error from a flockd that exited")
	}
	if got := err.Error(); !strings.Contains(got, "exited early") || !strings.Contains(got, "config rejected") {
		t.Errorf("error %q does not say flockd exited, with its log", got)
	}
}

// fakeFlockd serves a platform with flockd's -listen, -config and
// -env-file flags (others are accepted and ignored) until ctx ends.
func fakeFlockd(ctx context.Context, args []string) error {
	if msg := os.Getenv("FLOCKBENCH_TEST_FAIL"); msg != "" {
		return errors.New(msg)
	}
	fs := flag.NewFlagSet("flockd", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:0", "")
	config := fs.String("config", "", "")
	envPath := fs.String("env-file", "", "")
	fs.Bool("no-record", false, "")
	fs.Bool("no-console", false, "")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg, err := os.ReadFile(*config)
	if err != nil {
		return err
	}
	p, err := platformtest.Start(platformtest.WithAddr(*listen))
	if err != nil {
		return err
	}
	defer p.Close()
	f, err := provision(p, cfg)
	if err != nil {
		return err
	}
	type inst struct {
		Device string            `json:"device"`
		App    string            `json:"app"`
		Stage  string            `json:"stage"`
		Env    map[string]string `json:"env"`
	}
	b, err := json.Marshal(map[string]any{"ws_url": f.WSURL, "http_url": f.HTTPURL, "installations": []inst{
		{Device: "caller", App: "bench", Stage: "DEV", Env: f.Caller},
		{Device: "callee", App: "bench", Stage: "DEV", Env: f.Callee}}})
	if err != nil {
		return err
	}
	tmp := filepath.Join(filepath.Dir(*envPath), ".env.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, *envPath); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
