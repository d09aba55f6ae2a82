// This file tests identity, router URL, credential choice, remote-access
// URLs, Config and the env mirror.

package client

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client/internal/engine"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func baseEnv() map[string]string {
	return map[string]string{
		"DEVICE_SERIAL_NUMBER": "06a0bf96-a539-4d6a-8471-ac7adc67616e",
		"DEVICE_KEY":           "42",
		"DEVICE_NAME":          "pump-7",
		"SWARM_KEY":            "2",
		"APP_KEY":              "26",
		"APP_NAME":             "Interop",
		"ENV":                  "DEV",
	}
}

func newTestClient(t *testing.T, env map[string]string, opts ...Option) *Client {
	t.Helper()
	c, err := New(append([]Option{WithEnv(env), WithLogger(quietLogger())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestIdentityFromEnv(t *testing.T) {
	c := newTestClient(t, baseEnv())
	want := Identity{SerialNumber: "06a0bf96-a539-4d6a-8471-ac7adc67616e", DeviceKey: 42, DeviceName: "pump-7", SwarmKey: 2, AppKey: 26, AppName: "Interop", Stage: Dev}
	if diff := cmp.Diff(want, c.Identity()); diff != "" {
		t.Errorf("identity (-want +got):\n%s", diff)
	}
	if got := c.Identity().Realm(); got != "realm-2-26-dev" {
		t.Errorf("realm = %q", got)
	}
	if c.URL() != "wss://cbw.ironflock.com/ws-ua-usr" {
		t.Errorf("default URL = %q", c.URL())
	}
}

func TestStageMapping(t *testing.T) {
	for in, want := range map[string]Stage{"prod": Prod, "Prod": Prod, " PROD ": Prod, "production": Dev, "staging": Dev, "": Dev, "DEV": Dev} {
		env := baseEnv()
		env["ENV"] = in
		if got := newTestClient(t, env).Identity().Stage; got != want {
			t.Errorf("ENV=%q → %s, want %s", in, got, want)
		}
	}
}

func TestMissingSerial(t *testing.T) {
	env := baseEnv()
	delete(env, "DEVICE_SERIAL_NUMBER")
	_, err := New(WithEnv(env), WithLogger(quietLogger()))
	if !errors.Is(err, ErrMissingConfig) || !strings.Contains(err.Error(), "DEVICE_SERIAL_NUMBER") {
		t.Fatalf("err = %v, want ErrMissingConfig naming DEVICE_SERIAL_NUMBER", err)
	}
}

func TestMetadata(t *testing.T) {
	c := newTestClient(t, baseEnv())
	want := map[string]any{"DEVICE_SERIAL_NUMBER": "06a0bf96-a539-4d6a-8471-ac7adc67616e", "DEVICE_KEY": "42", "DEVICE_NAME": "pump-7"}
	if diff := cmp.Diff(want, c.metadata()); diff != "" {
		t.Errorf("metadata (-want +got):\n%s", diff)
	}
	env := baseEnv()
	env["DEVICE_KEY"] = "0"
	delete(env, "DEVICE_NAME")
	c = newTestClient(t, env)
	want = map[string]any{"DEVICE_SERIAL_NUMBER": "06a0bf96-a539-4d6a-8471-ac7adc67616e", "DEVICE_KEY": nil, "DEVICE_NAME": nil}
	if diff := cmp.Diff(want, c.metadata()); diff != "" {
		t.Errorf("metadata with unknowns (-want +got):\n%s", diff)
	}
}

func TestRouterURL(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		opts []Option
		want string
		err  error
	}{
		{"endpoint path replaced", map[string]string{"DEVICE_ENDPOINT_URL": "http://10.0.0.5:8080/some/path"}, nil, "ws://10.0.0.5:8080/ws-ua-usr", nil},
		{"https endpoint", map[string]string{"DEVICE_ENDPOINT_URL": "https://router.example/"}, nil, "wss://router.example/ws-ua-usr", nil},
		{"unusable endpoint falls through", map[string]string{"DEVICE_ENDPOINT_URL": "not a url", "RESWARM_URL": "https://studio.ironflock.dev"}, nil, "wss://cbw.ironflock.dev/ws-ua-usr", nil},
		{"studio map", map[string]string{"RESWARM_URL": "http://localhost:8086"}, nil, "ws://localhost:8080/ws-ua-usr", nil},
		{"unknown studio", map[string]string{"RESWARM_URL": "https://studio.example"}, nil, "", ErrMissingConfig},
		{"explicit wins", map[string]string{"DEVICE_ENDPOINT_URL": "http://a:1"}, []Option{WithURL("https://b.example/x")}, "wss://b.example/x", nil},
		{"bad scheme", nil, []Option{WithURL("ftp://b.example")}, "", ErrInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := baseEnv()
			for k, v := range tc.env {
				env[k] = v
			}
			c, err := New(append([]Option{WithEnv(env), WithLogger(quietLogger())}, tc.opts...)...)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if c.URL() != tc.want {
				t.Errorf("URL = %q, want %q", c.URL(), tc.want)
			}
		})
	}
}

// secretOf returns the WAMP-CRA secret of a credential.
func secretOf(cr credential) string {
	for _, m := range cr.methods {
		if m.Name == engine.AuthWAMPCRA {
			return m.Secret
		}
	}
	return ""
}

func TestCredentialChoice(t *testing.T) {
	dir := t.TempDir()
	env := baseEnv()
	env["APP_AUTH_ID"] = "app-26-dev-e1@env"
	env["APP_AUTH_SECRET"] = "env-secret"
	c := newTestClient(t, env, WithEnvDir(dir))
	if got := c.resolveCredential(); got.authID != "app-26-dev-e1@env" || secretOf(got) != "env-secret" {
		t.Errorf("env credential = %+v", got)
	}
	// The mirror wins and is re-read on every attempt.
	write := func(name, v string) {
		if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("APP_AUTH_ID", "app-26-dev-e2@file\n")
	write("APP_AUTH_SECRET", "file-secret")
	if got := c.resolveCredential(); got.authID != "app-26-dev-e2@file" || secretOf(got) != "file-secret" {
		t.Errorf("mirror credential = %+v", got)
	}
	write("APP_AUTH_SECRET", "") // an empty file counts as absent
	if got := c.resolveCredential(); secretOf(got) != "env-secret" {
		t.Errorf("empty file: credential = %+v", got)
	}
	delete(env, "APP_AUTH_ID")
	c = newTestClient(t, env, WithEnvDir(t.TempDir()))
	if got := c.resolveCredential(); got.kind != "legacy" || got.authID != env["DEVICE_SERIAL_NUMBER"] || secretOf(got) != env["DEVICE_SERIAL_NUMBER"] {
		t.Errorf("half a pair must fall back to legacy: %+v", got)
	}
	c = newTestClient(t, env, WithCredentials("x", "y"))
	if got := c.resolveCredential(); got.authID != "x" || got.kind != "explicit" {
		t.Errorf("explicit credential = %+v", got)
	}
	if _, err := New(WithEnv(env), WithCredentials("x", "")); !errors.Is(err, ErrInvalidArgument) {
		t.Errorf("half an explicit pair: err = %v", err)
	}
}

func TestRemoteAccessURL(t *testing.T) {
	cases := []struct {
		name string
		env  map[string]string
		port int
		opts []RemoteOption
		want string
		err  error
	}{
		{"http", nil, 8080, nil, "https://42-interop-8080.app.ironflock.com", nil},
		{"https", map[string]string{"TUNNEL_DOMAIN": "tunnel.example"}, 443, []RemoteOption{Protocol("https")}, "https://secure-42-interop-443.tunnel.example", nil},
		{"instance", map[string]string{"INSTANCE_KEY": "9", "CLOUD_TUNNEL_DOMAIN": "cloud.example"}, 80, nil, "https://i9-42-interop-80.cloud.example", nil},
		{"tcp", map[string]string{"REMOTE_PORT_FOR_22": "40022"}, 22, []RemoteOption{Protocol("tcp")}, "tcp://app.ironflock.com:40022", nil},
		{"udp custom variable", map[string]string{"MY_PORT": "5000"}, 53, []RemoteOption{Protocol("udp"), PortVariable("MY_PORT")}, "udp://app.ironflock.com:5000", nil},
		{"tcp unassigned", map[string]string{"REMOTE_PORT_FOR_22": "0"}, 22, []RemoteOption{Protocol("tcp")}, "", ErrMissingConfig},
		{"bad port", nil, 70000, nil, "", ErrInvalidArgument},
		{"bad protocol", nil, 80, []RemoteOption{Protocol("ftp")}, "", ErrInvalidArgument},
		{"label too long", map[string]string{"APP_NAME": strings.Repeat("x", 60)}, 80, nil, "", ErrInvalidArgument},
		{"dot in label", map[string]string{"APP_NAME": "a.b"}, 80, nil, "", ErrInvalidArgument},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := baseEnv()
			for k, v := range tc.env {
				env[k] = v
			}
			c := newTestClient(t, env, WithEnvDir(t.TempDir()))
			got, err := c.RemoteAccessURL(tc.port, tc.opts...)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Fatalf("err = %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("RemoteAccessURL = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

func TestConfigJSON(t *testing.T) {
	var cfg Config
	if err := cfg.UnmarshalJSON([]byte(`{"serialNumber":"s","deviceKey":7,"appName":"a","swarmKey":"3","appKey":4,"env":"PROD"}`)); err != nil {
		t.Fatal(err)
	}
	want := Config{SerialNumber: "s", DeviceKey: "7", AppName: "a", SwarmKey: 3, AppKey: 4, Env: "PROD"}
	if diff := cmp.Diff(want, cfg); diff != "" {
		t.Errorf("config (-want +got):\n%s", diff)
	}
	c, err := NewFromConfig(cfg, WithLogger(quietLogger()))
	if err != nil {
		t.Fatal(err)
	}
	if id := c.Identity(); id.DeviceKey != 7 || id.Stage != Prod || id.Realm() != "realm-3-4-prod" {
		t.Errorf("identity from config = %+v", id)
	}
	if err := cfg.UnmarshalJSON([]byte(`{"serialNumber":"s","swarmKey":"x"}`)); err == nil || !strings.Contains(err.Error(), "swarmKey") {
		t.Errorf("bad swarmKey: err = %v", err)
	}
}

func TestMirrorUnreadableOrMissing(t *testing.T) {
	env := baseEnv()
	env["APP_AUTH_ID"], env["APP_AUTH_SECRET"] = "app-26-dev-e1@env", "env-secret"
	// A mirror entry that cannot be read (here a directory) falls back to
	// the environment variable.
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "APP_AUTH_ID.txt"), 0o700); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, env, WithEnvDir(dir))
	if got := c.resolveCredential(); got.authID != "app-26-dev-e1@env" {
		t.Errorf("unreadable file: %+v", got)
	}
	// A mirror path whose parent is a file counts as absent.
	file := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	c = newTestClient(t, env, WithEnvDir(file))
	if got := c.resolveCredential(); got.authID != "app-26-dev-e1@env" {
		t.Errorf("non-directory mirror: %+v", got)
	}
}

// TestDeviceFunctionURIKept checks that the URI kept for the last device
// function is returned only for that function, and that a refused name is
// refused whatever was kept.
func TestDeviceFunctionURIKept(t *testing.T) {
	c := newTestClient(t, baseEnv())
	for _, step := range []struct {
		key  int
		name string
		want string
	}{
		{5, "echo", "2.5.26.DEV.echo"},
		{5, "echo", "2.5.26.DEV.echo"},
		{5, "count", "2.5.26.DEV.count"},
		{6, "count", "2.6.26.DEV.count"},
		{5, "echo", "2.5.26.DEV.echo"},
	} {
		got, err := c.deviceFunctionURI("CallDeviceFunction", step.key, step.name)
		if err != nil || got != step.want {
			t.Fatalf("device %d, %q: %q, %v; want %q", step.key, step.name, got, err, step.want)
		}
	}
	for _, name := range []string{"", " echo", "ec ho", "echo#"} {
		if _, err := c.deviceFunctionURI("CallDeviceFunction", 5, name); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("name %q: %v, want ErrInvalidArgument", name, err)
		}
	}
}
