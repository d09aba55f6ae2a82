package platformtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
)

func readSeed(t *testing.T) *Seed {
	t.Helper()
	dir := filepath.Join("testdata", "seed")
	b, err := os.ReadFile(filepath.Join(dir, "flockd.yml"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSeed(b, dir)
	if err != nil {
		t.Fatalf("ParseSeed: %v", err)
	}
	return s
}

func TestParseSeed(t *testing.T) {
	s := readSeed(t)
	ai, _ := os.ReadFile(filepath.Join("testdata", "seed", ".ironflock", "ai-template.yml"))
	want := &Seed{
		Projects: []SeedProject{
			{Name: "demo", SwarmKey: 1,
				Devices: []SeedDevice{{Name: "dev-1", DeviceKey: 7, SerialNumber: "5b3c0e4e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"}, {Name: "dev-2"}},
				Groups:  []SeedGroup{{Name: "line-1", GroupKey: 3, Devices: []string{"dev-1", "dev-2"}}}},
			{Name: "lab", Devices: []SeedDevice{{Name: "bench"}}},
		},
		Apps: []SeedApp{
			{Name: "sensors", AppKey: 10,
				DataTemplate:   "data:\n  tables:\n    - tablename: readings\n      columns:\n        - {id: tsp, dataType: timestamp}\n",
				AITemplate:     string(ai),
				AITemplateFile: ".ironflock/ai-template.yml"},
			{Name: "viewer", DataTemplate: "data:\n  tables: []\n", DataTemplateFile: ".ironflock/data-template.yml"},
		},
		Installations: []SeedInstallation{
			{Project: "demo", Device: "dev-1", App: "sensors", Stage: "DEV"},
			{Project: "demo", Device: "dev-2", App: "sensors"},
			{Project: "lab", Device: "bench", App: "Viewer", Stage: "prod"},
		},
		Users: []SeedUser{
			{Name: "alice", Token: "alice-token", Projects: map[string]string{"demo": "admin", "lab": "viewer"}},
			{Name: "bob"},
		},
	}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("seed (-want +got):\n%s", diff)
	}
}

func TestApplySeed(t *testing.T) {
	p := New(t)
	res, err := p.Apply(readSeed(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Projects) != 2 || len(res.Devices) != 3 || len(res.Apps) != 2 || len(res.Installations) != 3 {
		t.Fatalf("result: %d projects, %d devices, %d apps, %d installations",
			len(res.Projects), len(res.Devices), len(res.Apps), len(res.Installations))
	}
	var realms []string
	for _, in := range res.Installations {
		realms = append(realms, in.Realm()+"/"+in.Device().Name())
	}
	if diff := cmp.Diff([]string{"realm-1-10-dev/dev-1", "realm-1-10-dev/dev-2", "realm-2-1-prod/bench"}, realms); diff != "" {
		t.Errorf("installations (-want +got):\n%s", diff)
	}
	if res.Tokens["alice"] != "alice-token" || !strings.HasPrefix(res.Tokens["bob"], "tok-") {
		t.Errorf("tokens %v", res.Tokens)
	}
	if d := res.Devices[0]; d.Key() != 7 || d.Serial() != "5b3c0e4e-1f2a-4b3c-8d4e-5f6a7b8c9d0e" {
		t.Errorf("device dev-1: key %d serial %s", d.Key(), d.Serial())
	}
	var g *registry.Group
	var alice *registry.User
	var ai string
	p.reg.Do(func(s *registry.State) { g, alice, ai = s.Group(3), s.User("alice"), s.App(10).AITemplate })
	if g == nil || g.Name != "line-1" || len(g.Devices) != 2 {
		t.Errorf("group %+v", g)
	}
	if alice == nil || alice.Projects[1] != wire.RoleAdmin || alice.Projects[2] != wire.RoleViewer {
		t.Errorf("user alice %+v", alice)
	}
	if !strings.Contains(ai, "assistant:") {
		t.Errorf("ai template %q", ai)
	}
	worldtest.Connect(t, p, res.Installations[2], client.MSGPACK)

	// Applying again conflicts with what is there.
	if _, err := p.Apply(&Seed{Projects: []SeedProject{{Name: "demo"}}}); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("second apply: %v", err)
	}
}

func TestParseSeedErrors(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.yml"), []byte("data: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown top-level key", "projects: []\nfoo: 1\n", []string{`line 2: top level: unknown key "foo"`}},
		{"unknown nested key", "projects:\n  - name: a\n    devices:\n      - name: d\n        colour: red\n",
			[]string{`line 5: projects[0].devices[0]: unknown key "colour"`}},
		{"type error", "projects:\n  - name: a\n    swarm_key: abc\n", []string{"line 3", "abc"}},
		{"missing names", "projects:\n  - swarm_key: 1\n    devices:\n      - device_key: 2\napps:\n  - app_key: 3\nusers:\n  - token: x\n",
			[]string{"line 2: projects[0]: project name is empty", "line 4: projects[0].devices[0]: device name is empty",
				"line 6: apps[0]: app name", "line 8: users[0]: user name is empty"}},
		{"duplicates", "projects:\n  - {name: a, swarm_key: 1, devices: [{name: d, device_key: 5}, {name: d, device_key: 5}]}\n  - {name: a, swarm_key: 1}\napps:\n  - {name: x}\n  - {name: X}\n",
			[]string{`device "d" is declared twice`, "device_key 5 is also used by", `project "a" is declared twice`,
				"swarm_key 1 is also used by", `app "X" is declared twice`}},
		{"negative key", "apps:\n  - {name: x, app_key: -1}\n", []string{"line 2: apps[0]: app_key -1: keys are positive"}},
		{"serial", "projects:\n  - {name: a, devices: [{name: d, serial_number: 'a b'}, {name: e, serial_number: s}, {name: f, serial_number: s}]}\n",
			[]string{"must not contain spaces", `serial_number "s" is also used by`}},
		{"groups", "projects:\n  - name: a\n    devices: [{name: d}]\n    groups:\n      - {name: g, devices: [d, d, nope]}\n",
			[]string{`line 5: projects[0].groups[0]: device "d" is listed twice`, `device "nope" is not a device of project "a"`}},
		{"installations", "projects: [{name: a, devices: [{name: d}]}]\napps: [{name: x}]\ninstallations:\n  - {project: a, device: d, app: x, stage: test}\n  - {project: b, device: d, app: x}\n  - {project: a, device: e, app: y}\n  - {project: a, device: d}\n  - {project: a, device: d, app: X}\n  - {project: a, device: d, app: x, stage: dev}\n",
			[]string{`line 4: installations[0]: stage "test"`, `unknown project "b"`, `unknown device "e"`, `unknown app "y"`,
				"installations[3]: project, device and app are required", `installations[5]: app "x" is installed twice`}},
		{"users", "projects: [{name: a}]\nusers:\n  - {name: u, token: t, projects: {a: owner, b: admin}}\n  - {name: u, token: t}\n",
			[]string{`role "owner"`, `unknown project "b"`, `user "u" is declared twice`, "token is also the token of users[0]"}},
		{"grants", "projects: [{name: a}]\napps: [{name: x}, {name: y}]\ngrants:\n  - {project: a, consumer: x, provider: y}\n  - {project: b, consumer: x, provider: y}\n  - {project: a, consumer: z, provider: y}\n  - {project: a, consumer: x, provider: w}\n  - {project: a, consumer: x}\n  - {project: a, consumer: X, provider: Y}\n",
			[]string{`line 5: grants[1]: unknown project "b"`, `unknown consumer app "z"`, `unknown provider app "w"`,
				"grants[4]: project, consumer and provider are required", "grants[5]: the grant is listed twice"}},
		{"templates", "apps:\n  - {name: x, data_template: 'a: 1', data_template_file: t.yml}\n  - {name: y, ai_template_file: missing.yml}\n",
			[]string{"data_template and data_template_file are both set", "apps[1].ai_template_file"}},
		{"not yaml", "projects: [\n", []string{"seed: yaml"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSeed([]byte(tc.yaml), dir)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error\n%v\ndoes not contain %q", err, w)
				}
			}
		})
	}
}

func TestParseSeedEmptyAndFileTemplate(t *testing.T) {
	s, err := ParseSeed(nil, ".")
	if err != nil || len(s.Projects) != 0 {
		t.Fatalf("empty seed: %+v, %v", s, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.yml"), []byte("data: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err = ParseSeed([]byte("apps: [{name: x, data_template_file: t.yml}]\n"), dir)
	if err != nil || s.Apps[0].DataTemplate != "data: {}\n" {
		t.Fatalf("file template: %+v, %v", s, err)
	}
}
