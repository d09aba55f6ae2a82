package platformtest

import (
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

const filesSeed = `
projects:
  - {name: demo, swarm_key: 3, devices: [{name: d1}, {name: d2}]}
apps:
  - name: sensors
    app_key: 10
    data_template: |
      data:
        tables: []
installations:
  - {project: demo, device: d1, app: sensors}
  - {project: demo, device: d2, app: Sensors, stage: PROD}
files:
  inline_max_bytes: 1024
  presign: false
  quotas:
    - {project: demo, app: sensors, stage: DEV, bytes: 5000}
    - {project: demo, app: SENSORS, stage: prod, bytes: 0}
`

func TestSeedFiles(t *testing.T) {
	s, err := ParseSeed([]byte(filesSeed), ".")
	if err != nil {
		t.Fatal(err)
	}
	inline, presign := int64(1024), false
	want := SeedFiles{InlineMaxBytes: &inline, Presign: &presign, Quotas: []SeedQuota{
		{Project: "demo", App: "sensors", Stage: "DEV", Bytes: 5000},
		{Project: "demo", App: "SENSORS", Stage: "prod", Bytes: 0},
	}}
	if diff := cmp.Diff(want, s.Files); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	p := New(t)
	res, err := p.Apply(s)
	if err != nil {
		t.Fatal(err)
	}
	for i, quota := range []int64{5000, 0} {
		f := worldtest.FilesClient{C: worldtest.Connect(t, p, res.Installations[i], serialize.MSGPACK)}
		cat := f.OK(t, wire.FilesNamespaces, nil)
		if cat["inline_max_bytes"] != int64(1024) || cat["presign_available"] != false || cat["quota_bytes"] != quota {
			t.Errorf("%s: catalog %v", res.Installations[i].Realm(), cat)
		}
	}
}

func TestSeedFilesErrors(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		want       []string
	}{
		{"unknown key", "files:\n  inline: 5\n", []string{`line 2: files: unknown key "inline"`}},
		{"unknown quota key", "files:\n  quotas:\n    - {project: a, megabytes: 5}\n", []string{`line 3: files.quotas[0]: unknown key "megabytes"`}},
		{"values", "projects: [{name: a}]\napps: [{name: x}]\nfiles:\n  inline_max_bytes: -1\n  quotas:\n    - {project: b, app: y, stage: test, bytes: -5}\n    - {project: a, app: x}\n    - {project: a, app: X, stage: dev}\n",
			[]string{"files.inline_max_bytes: -1 is negative", `line 6: files.quotas[0]: unknown project "b"`, `unknown app "y"`,
				`stage "test"`, "bytes -5 is negative", `line 8: files.quotas[2]: a second quota of app "X"`}},
		{"type", "files:\n  presign: maybe\n", []string{"maybe"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSeed([]byte(tc.yaml), ".")
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
	// A seed built in code is checked when applied.
	p := New(t)
	neg := int64(-1)
	if _, err := p.Apply(&Seed{Files: SeedFiles{InlineMaxBytes: &neg}}); err == nil {
		t.Error("negative inline limit applied")
	}
	if _, err := p.Apply(&Seed{Files: SeedFiles{Quotas: []SeedQuota{{Project: "none", App: "none"}}}}); err == nil {
		t.Error("quota of an unknown app applied")
	}
}
