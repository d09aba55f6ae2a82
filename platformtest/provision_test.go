package platformtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

func TestKeysAndDefaults(t *testing.T) {
	p := New(t)
	d1 := p.AddDevice("a")
	if d1.Project().Name() != "default" || d1.Project().Key() != 1 || d1.Key() != 1 {
		t.Errorf("first device: project %q/%d, key %d", d1.Project().Name(), d1.Project().Key(), d1.Key())
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(d1.Serial()) {
		t.Errorf("serial %q is not a v4 UUID", d1.Serial())
	}
	d7 := p.AddDevice("b", Key(7), Serial("serial-b"))
	d2 := p.AddDevice("c")
	if d7.Key() != 7 || d7.Serial() != "serial-b" || d2.Key() != 2 || d2.Project() != d1.Project() {
		t.Errorf("keys %d %d, serial %q", d7.Key(), d2.Key(), d7.Serial())
	}
	pr := p.AddProject("plant", Key(5))
	d := pr.AddDevice("a") // same name, other project
	if d.Project() != pr || d.Key() != 3 {
		t.Errorf("device in plant: project %q key %d", d.Project().Name(), d.Key())
	}
	a := p.AddApp("sensors", "data:\n  tables: []\n")
	if a.Key() != 1 || a.Name() != "sensors" || a.DataTemplate() != "data:\n  tables: []\n" {
		t.Errorf("app %d %q %q", a.Key(), a.Name(), a.DataTemplate())
	}
}

func TestProvisioningErrors(t *testing.T) {
	p := New(t)
	pr := p.AddProject("plant", Key(3))
	d := p.AddDevice("dev", InProject(pr), Serial("s-1"))
	a := p.AddApp("app", "", Key(9))
	p.Install(d, a, Dev)
	other := New(t).AddProject("elsewhere")
	do := func(f func(s *registry.State) error) (err error) {
		p.reg.Do(func(s *registry.State) { err = f(s) })
		return err
	}
	addProject := func(name string, spec registry.Spec) error {
		return do(func(s *registry.State) error { _, err := s.AddProject(name, spec); return err })
	}
	addDevice := func(name string, spec registry.Spec) error {
		return do(func(s *registry.State) error { _, err := s.AddDevice(name, spec); return err })
	}
	addApp := func(name string, spec registry.Spec) error {
		return do(func(s *registry.State) error { _, err := s.AddApp(name, "", "", spec); return err })
	}

	for _, tc := range []struct {
		name string
		err  func() error
		want string
	}{
		{"duplicate project", func() error { return addProject("plant", registry.Spec{}) }, "exists"},
		{"duplicate swarm key", func() error { return addProject("x", specOf([]ProvisionOption{Key(3)})) }, "taken"},
		{"zero key", func() error { return addProject("x", specOf([]ProvisionOption{Key(0)})) }, "positive"},
		{"serial on a project", func() error { return addProject("x", specOf([]ProvisionOption{Serial("s")})) }, "only the Key"},
		{"empty device name", func() error { return addDevice(" ", registry.Spec{}) }, "empty"},
		{"duplicate device name", func() error { return addDevice("dev", specOf([]ProvisionOption{InProject(pr)})) }, "exists"},
		{"duplicate serial", func() error { return addDevice("x", specOf([]ProvisionOption{Serial("s-1")})) }, "taken"},
		{"serial with space", func() error { return addDevice("x", specOf([]ProvisionOption{Serial("a b")})) }, "without spaces"},
		{"foreign project", func() error { return addDevice("x", specOf([]ProvisionOption{InProject(other)})) }, "not on this platform"},
		{"duplicate app, other case", func() error { return addApp("APP", registry.Spec{}) }, "exists"},
		{"bad app name", func() error { return addApp("my app", registry.Spec{}) }, "letters"},
		{"project option on an app", func() error { return addApp("x", specOf([]ProvisionOption{InProject(pr)})) }, "only the Key"},
		{"install twice", func() error { _, err := p.install(d, a, Dev); return err }, "already installed"},
		{"bad stage", func() error { _, err := p.install(d, a, "TEST"); return err }, "want DEV or PROD"},
		{"nil app", func() error { _, err := p.install(d, nil, Dev); return err }, "required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.err()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
	if in, err := p.install(d, a, "prod"); err != nil || in.Stage() != Prod || in.Realm() != "realm-3-9-prod" {
		t.Errorf("install in lower-case prod: %v", err)
	}
}

func TestEnv(t *testing.T) {
	f := newFixture(t)
	id, secret := f.in1.Credentials()
	want := map[string]string{
		wire.EnvSerialNumber:  "06a0bf96-a539-4d6a-8471-ac7adc67616e",
		wire.EnvDeviceKey:     "42",
		wire.EnvDeviceName:    "dev-1",
		wire.EnvSwarmKey:      "2",
		wire.EnvAppKey:        "26",
		wire.EnvAppName:       "interop",
		wire.EnvStage:         "DEV",
		wire.EnvEndpointURL:   f.p.HTTPURL(),
		wire.EnvAppAuthID:     "app-26-dev-e1@06a0bf96-a539-4d6a-8471-ac7adc67616e",
		wire.EnvAppAuthSecret: secret,
	}
	if id != want[wire.EnvAppAuthID] {
		t.Errorf("authid %s", id)
	}
	if diff := cmp.Diff(want, f.in1.Env()); diff != "" {
		t.Errorf("Env (-want +got):\n%s", diff)
	}
	env := f.in1.Env()
	env[wire.EnvDeviceName] = "changed"
	if f.in1.Env()[wire.EnvDeviceName] != "dev-1" {
		t.Error("Env returned shared state")
	}
	legacy := f.in1.LegacyEnv()
	delete(want, wire.EnvAppAuthID)
	delete(want, wire.EnvAppAuthSecret)
	if diff := cmp.Diff(want, legacy); diff != "" {
		t.Errorf("LegacyEnv (-want +got):\n%s", diff)
	}
	if f.in1.Device() != f.d1 || f.in1.App() != f.app || f.in1.Stage() != Dev || f.in1.Realm() != "realm-2-26-dev" {
		t.Error("installation accessors")
	}
	// The secret is the documented HMAC (docs/wire.md §6).
	if got := registry.AppSecret(f.d1.m.CredKey, f.d1.Serial(), 26, string(Dev), 1); got != secret {
		t.Errorf("secret %s, derivation gives %s", secret, got)
	}
}

func TestWriteEnvDir(t *testing.T) {
	f := newFixture(t)
	dir := filepath.Join(t.TempDir(), "env")
	if err := f.in1.WriteEnvDir(dir); err != nil {
		t.Fatal(err)
	}
	for name, v := range f.in1.Env() {
		b, err := os.ReadFile(filepath.Join(dir, name+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != v {
			t.Errorf("%s.txt = %q, want %q", name, b, v)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != len(f.in1.Env()) {
		t.Errorf("%d files, want %d", len(entries), len(f.in1.Env()))
	}
}
