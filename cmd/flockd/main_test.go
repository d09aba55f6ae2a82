package main

import (
	"bytes"
	"context"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// syncBuffer is a log sink safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// inMemory adds -memory to args that name no data folder, so that a test
// keeps nothing (and writes no .flockd beside the package's sources).
func inMemory(args []string) []string {
	if slices.Contains(args, "-data") || slices.Contains(args, "-memory") {
		return args
	}
	return append([]string{"-memory"}, args...)
}

// serveInBackground runs flockd with args until the test ends and returns
// the environment file it wrote and its log.
func serveInBackground(t *testing.T, args ...string) (envFile, *syncBuffer) {
	t.Helper()
	f, logs, stop := serveStoppable(t, inMemory(args)...)
	t.Cleanup(stop)
	return f, logs
}

// serveStoppable runs flockd with args (as given: no -memory added) and
// returns the environment file it wrote, its log and a function that
// stops it and checks its clean shutdown.
func serveStoppable(t *testing.T, args ...string) (envFile, *syncBuffer, func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	path := filepath.Join(t.TempDir(), "env.json")
	logs := &syncBuffer{}
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-listen", "127.0.0.1:0", "-env-file", path}, args...), io.Discard, logs,
			func(*platformtest.Platform) { close(ready) })
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("run: %v", err)
			}
			if !strings.Contains(logs.String(), "flockd stopped") {
				t.Errorf("no clean shutdown in the log:\n%s", logs)
			}
		})
	}
	select {
	case <-ready:
	case err := <-done:
		t.Fatalf("flockd ended early: %v\n%s", err, logs)
	case <-time.After(20 * time.Second):
		cancel()
		t.Fatalf("flockd not ready:\n%s", logs)
	}
	return readEnvFile(t, path), logs, stop
}

// joinWithEnv connects a raw nexus client the way a device app would: from
// its environment.
func joinWithEnv(t testing.TB, wsURL string, env map[string]string) *client.Client {
	t.Helper()
	swarm, _ := strconv.Atoi(env[wire.EnvSwarmKey])
	app, _ := strconv.Atoi(env[wire.EnvAppKey])
	secret := env[wire.EnvAppAuthSecret]
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := client.ConnectNet(ctx, wsURL, client.Config{
		Realm:        wire.Realm(swarm, app, env[wire.EnvStage]),
		HelloDetails: wamp.Dict{"authid": env[wire.EnvAppAuthID]},
		AuthHandlers: map[string]client.AuthFunc{"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
			return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
		}},
		Serialization: client.MSGPACK,
		Logger:        log.New(io.Discard, "", 0),
	})
	if err != nil {
		t.Fatalf("join with %s: %v", env[wire.EnvAppAuthID], err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func TestServeDemo(t *testing.T) {
	leakcheck.Check(t)
	f, logs := serveInBackground(t)
	if !strings.HasPrefix(f.WSURL, "ws://127.0.0.1:") || !strings.HasSuffix(f.WSURL, wire.RouterPath) || !strings.HasPrefix(f.HTTPURL, "http://127.0.0.1:") {
		t.Errorf("URLs %s %s", f.WSURL, f.HTTPURL)
	}
	if len(f.Installations) != 2 || !cmp.Equal(f.Tokens, map[string]string{"alice": demoToken}) {
		t.Fatalf("env file: %+v", f)
	}
	for i, in := range f.Installations {
		want := envInstallation{Project: "demo", Device: "sensor-" + strconv.Itoa(i+1), App: "quickstart", Stage: "DEV"}
		got := in
		got.Env = nil
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("installation %d (-want +got):\n%s", i, diff)
		}
		if in.Env[wire.EnvEndpointURL] != f.HTTPURL || in.Env[wire.EnvDeviceName] != want.Device || len(in.Env) != 10 {
			t.Errorf("env %v", in.Env)
		}
		c := joinWithEnv(t, f.WSURL, in.Env)
		if got := c.RealmDetails()["authid"]; got != in.Env[wire.EnvSerialNumber] {
			t.Errorf("authid %v, want the serial %s", got, in.Env[wire.EnvSerialNumber])
		}
	}
	for _, line := range []string{"flockd listening", "realm=realm-1-1-dev", "environment file written"} {
		if !strings.Contains(logs.String(), line) {
			t.Errorf("log lacks %q:\n%s", line, logs)
		}
	}
}

func TestServeConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ironflock"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ironflock", "data-template.yml"), []byte("data:\n  tables: []\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "flockd.yml")
	err := os.WriteFile(config, []byte(`projects:
  - name: plant
    swarm_key: 2
    devices:
      - {name: press, device_key: 42, serial_number: 06a0bf96-a539-4d6a-8471-ac7adc67616e}
apps:
  - {name: interop, app_key: 26, data_template_file: .ironflock/data-template.yml}
installations:
  - {project: plant, device: press, app: interop, stage: PROD}
users:
  - {name: alice, token: alice-token, projects: {plant: admin}}
`), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := serveInBackground(t, "-config", config)
	if diff := cmp.Diff(map[string]string{"alice": "alice-token"}, f.Tokens); diff != "" {
		t.Errorf("tokens (-want +got):\n%s", diff)
	}
	if len(f.Installations) != 1 {
		t.Fatalf("installations %+v", f.Installations)
	}
	env := f.Installations[0].Env
	if env[wire.EnvAppAuthID] != "app-26-prod-e1@06a0bf96-a539-4d6a-8471-ac7adc67616e" || env[wire.EnvStage] != "PROD" {
		t.Errorf("env %v", env)
	}
	joinWithEnv(t, f.WSURL, env)
}

func TestRunErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yml")
	if err := os.WriteFile(bad, []byte("projects:\n  - name: a\n    colour: red\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"unknown key", []string{"-config", bad}, `line 3: projects[0]: unknown key "colour"`},
		{"missing config", []string{"-config", filepath.Join(dir, "nope.yml")}, "no such file"},
		{"unknown flag", []string{"-nope"}, "flag provided but not defined"},
		{"extra argument", []string{"-listen", "127.0.0.1:0", "extra"}, `unexpected argument "extra"`},
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"bad address", []string{"-memory", "-listen", "256.0.0.1:1"}, "listen"},
		{"memory and data", []string{"-memory", "-data", dir}, "-memory and -data exclude each other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := run(context.Background(), tc.args, io.Discard, io.Discard, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	var usage bytes.Buffer
	if err := run(context.Background(), []string{"-h"}, io.Discard, &usage, nil); err != nil {
		t.Errorf("-h: %v", err)
	}
	for _, want := range []string{"flockd COMMAND ARGS", "\n  check ", "\n  env ", "\n  validate ", "-listen address"} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("flockd -h does not show %q:\n%s", want, usage.String())
		}
	}
	if err := run(context.Background(), []string{"frobnicate"}, io.Discard, io.Discard, nil); err == nil || !strings.Contains(err.Error(), "the commands are check, env, validate") {
		t.Errorf("unknown command: %v", err)
	}
}
