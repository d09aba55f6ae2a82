package platformtest

import (
	"context"
	"log/slog"
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// reconcileSeed is a configuration in the shape flockd reads. Its
// placeholders are replaced per test.
const reconcileSeed = `
projects:
  - name: plant
    devices:
      - name: press-1
      - name: press-2
    groups:
      - name: line
        devices: [press-1]
apps:
  - name: sensors
    data_template: |
      data:
        tables:
          - tablename: readings
            columns:
              - {id: tsp, name: T, dataType: timestamp}
              - {id: v, name: V, dataType: numeric}
  - name: dashboard
    data_template: |
      data:
        tables: []
      consumes:
        - app: sensors
installations:
  - {project: plant, device: press-1, app: sensors}
  - {project: plant, device: press-2, app: sensors}
  - {project: plant, device: press-1, app: dashboard}
users:
  - name: alice
    projects: {plant: admin}
  - name: bob
    token: bob-token
    projects: {plant: viewer}
grants:
  - {project: plant, consumer: dashboard, provider: sensors}
`

// seedOf parses a configuration, replacing each old with its new in
// reconcileSeed (pairs of strings).
func seedOf(t *testing.T, edits ...string) *Seed {
	t.Helper()
	return editedSeed(t, reconcileSeed, edits...)
}

// editedSeed parses the configuration src, replacing each old with its
// new (pairs of strings).
func editedSeed(t *testing.T, src string, edits ...string) *Seed {
	t.Helper()
	for i := 0; i+1 < len(edits); i += 2 {
		if !strings.Contains(src, edits[i]) {
			t.Fatalf("the seed has no %q", edits[i])
		}
		src = strings.Replace(src, edits[i], edits[i+1], 1)
	}
	s, err := ParseSeed([]byte(src), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// dataPlatform starts a platform on the data folder dir that logs to the
// returned buffer.
func dataPlatform(t *testing.T, dir string) (*Platform, *worldtest.SyncBuffer) {
	t.Helper()
	logs := &worldtest.SyncBuffer{}
	p := New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	return p, logs
}

func mustReconcile(t *testing.T, p *Platform, s *Seed, opts ...ReconcileOption) *SeedResult {
	t.Helper()
	res, err := p.Reconcile(s, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// envs returns the environment of each installation of res without the
// endpoint URL (its port changes from one platform to the next).
func envs(res *SeedResult) []map[string]string {
	var out []map[string]string
	for _, in := range res.Installations {
		e := maps.Clone(in.Env())
		delete(e, wire.EnvEndpointURL)
		out = append(out, e)
	}
	return out
}

// TestReconcileKeepsWhatIsGenerated: the same configuration over the same
// folder gives the same serials, keys, credentials and tokens, adding
// nothing.
func TestReconcileKeepsWhatIsGenerated(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	p1, _ := dataPlatform(t, dir)
	res1 := mustReconcile(t, p1, seedOf(t))
	p1.Close()

	p2, logs := dataPlatform(t, dir)
	res2 := mustReconcile(t, p2, seedOf(t))
	if diff := cmp.Diff(envs(res1), envs(res2)); diff != "" {
		t.Errorf("environments differ after the restart (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(res1.Tokens, res2.Tokens); diff != "" || !strings.HasPrefix(res2.Tokens["alice"], "tok-") {
		t.Errorf("tokens %v, differ (-before +after):\n%s", res2.Tokens, diff)
	}
	for _, line := range []string{"added", "removed", "changed"} {
		if strings.Contains(logs.String(), line) {
			t.Errorf("the second reconciliation logged %q:\n%s", line, logs)
		}
	}
}

// TestReconcileAddsAndRemoves: what the configuration adds is added; what
// it no longer lists is removed with a log line, realms no installation
// uses any more go with their data, and what was made in Go stays.
func TestReconcileAddsAndRemoves(t *testing.T) {
	p, logs := dataPlatform(t, filepath.Join(t.TempDir(), "data"))
	res := mustReconcile(t, p, seedOf(t))
	sensorsDev := res.Installations[0].Realm()
	dashDev := res.Installations[2].Realm()
	if err := p.InsertRows(res.Installations[0], "readings", map[string]any{"tsp": 1000, "v": 1.5}); err != nil {
		t.Fatal(err)
	}
	bench := p.AddDevice("bench", InProject(res.Projects[0])) // made in Go: not the configuration's

	v2 := seedOf(t,
		"      - name: press-2\n", "      - name: press-3\n",
		"  - {project: plant, device: press-2, app: sensors}\n  - {project: plant, device: press-1, app: dashboard}\n",
		"  - {project: plant, device: press-3, app: sensors, stage: PROD}\n",
		`  - name: dashboard
    data_template: |
      data:
        tables: []
      consumes:
        - app: sensors
`, "",
		"  - name: bob\n    token: bob-token\n    projects: {plant: viewer}\n", "",
		"grants:\n  - {project: plant, consumer: dashboard, provider: sensors}\n", "")
	res2 := mustReconcile(t, p, v2)
	for _, want := range []string{
		`msg="device is no longer in the configuration: removed" project=plant device=press-2`,
		`msg="app is no longer in the configuration: removed" app=dashboard`,
		`msg="user is no longer in the configuration: removed" user=bob`,
		`msg="realm removed with its data: no installation of the configuration uses it any more" realm=` + dashDev,
		`msg="device added" project=plant device=press-3`,
	} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("no log line %q in:\n%s", want, logs)
		}
	}
	if len(res2.Installations) != 2 || res2.Installations[1].Stage() != Prod || res2.Installations[1].Device().Name() != "press-3" {
		t.Errorf("installations %v", res2.Installations)
	}
	p.reg.Do(func(s *registry.State) {
		if _, ok := s.Realm(dashDev); ok {
			t.Errorf("realm %s of the removed app is still provisioned", dashDev)
		}
		if s.AppByName("dashboard") != nil || s.User("bob") != nil || len(s.Grants()) != 0 {
			t.Error("the removed app, user or grant is still there")
		}
		if s.Device(bench.Key()) == nil {
			t.Error("the device made in Go was removed")
		}
	})
	if rows := p.TableRows(sensorsDev, "readings"); len(rows) != 1 {
		t.Errorf("rows of the realm still in use: %v", rows)
	}

	// Without any installation of sensors in DEV, its realm goes with its
	// rows.
	v3 := seedOf(t, "  - {project: plant, device: press-1, app: sensors}\n  - {project: plant, device: press-2, app: sensors}\n  - {project: plant, device: press-1, app: dashboard}\n", "")
	mustReconcile(t, p, v3)
	if !strings.Contains(logs.String(), "realm="+sensorsDev) {
		t.Errorf("no log line for realm %s:\n%s", sensorsDev, logs)
	}
	if _, err := p.fleet.TableRows(context.Background(), sensorsDev, "readings"); err == nil {
		t.Errorf("realm %s still serves rows", sensorsDev)
	}
}

const readingsColumns = `              - {id: tsp, name: T, dataType: timestamp}
              - {id: v, name: V, dataType: numeric}
`

// TestReconcileTemplateChange: a column added makes a new release the
// installations move to; a column removed is refused (nothing changes)
// unless the drop is allowed.
func TestReconcileTemplateChange(t *testing.T) {
	p, logs := dataPlatform(t, filepath.Join(t.TempDir(), "data"))
	res := mustReconcile(t, p, seedOf(t))
	in := res.Installations[0]
	first := in.ReleaseKey()

	added := seedOf(t, readingsColumns, readingsColumns+"              - {id: w, name: W, dataType: string}\n")
	mustReconcile(t, p, added)
	if in.ReleaseKey() == first {
		t.Error("the installation stayed on the old release")
	}
	if !strings.Contains(logs.String(), `version=1.0.1 added="column readings.w (string)" dropped=""`) {
		t.Errorf("no log line of the new release:\n%s", logs)
	}
	var version string
	key := in.ReleaseKey()
	p.reg.Do(func(s *registry.State) { version = s.Release(key).Version })
	if version != "1.0.1" {
		t.Errorf("version %q", version)
	}

	dropped := seedOf(t, readingsColumns, "              - {id: tsp, name: T, dataType: timestamp}\n              - {id: v, name: V, dataType: string}\n")
	_, err := p.Reconcile(dropped)
	if err == nil || !strings.Contains(err.Error(), `app "sensors": column readings.w (string) removed, column readings.v retyped from numeric to string`) ||
		!strings.Contains(err.Error(), "-allow-drop") {
		t.Fatalf("a dropping change: %v", err)
	}
	if got := p.AppByKey(in.App().Key()).DataTemplate(); got != added.Apps[0].DataTemplate {
		t.Errorf("the refused change changed the template:\n%s", got)
	}
	mustReconcile(t, p, dropped, AllowDrop())
	if got := p.AppByKey(in.App().Key()).DataTemplate(); got != dropped.Apps[0].DataTemplate {
		t.Errorf("the allowed change left the template:\n%s", got)
	}
}

// TestReconcileConfigWins: a serial number or a token the configuration
// sets replaces the generated one; roles follow the configuration.
func TestReconcileConfigWins(t *testing.T) {
	p, _ := dataPlatform(t, filepath.Join(t.TempDir(), "data"))
	mustReconcile(t, p, seedOf(t))
	res := mustReconcile(t, p, seedOf(t,
		"      - name: press-1\n", "      - name: press-1\n        serial_number: SER-1\n",
		"  - name: alice\n", "  - name: alice\n    token: alice-2\n",
		"projects: {plant: viewer}", "projects: {plant: admin}"))
	if s := res.Installations[0].Env()[wire.EnvSerialNumber]; s != "SER-1" {
		t.Errorf("serial %q", s)
	}
	if id, _ := res.Installations[0].Credentials(); !strings.HasSuffix(id, "@SER-1") {
		t.Errorf("authid %q", id)
	}
	if res.Tokens["alice"] != "alice-2" {
		t.Errorf("tokens %v", res.Tokens)
	}
	p.reg.Do(func(s *registry.State) {
		if s.Role(s.User("bob"), s.ProjectByName("plant")) != wire.RoleAdmin {
			t.Error("bob's role did not follow the configuration")
		}
	})
}

// TestReconcileAllOrNothing: a reconciliation that fails half-way leaves
// the world as it was.
func TestReconcileAllOrNothing(t *testing.T) {
	p, _ := dataPlatform(t, filepath.Join(t.TempDir(), "data"))
	mustReconcile(t, p, seedOf(t))
	p.AddUser("carol", "carol-token", map[*Project]string{})
	_, err := p.Reconcile(seedOf(t,
		"      - name: press-2\n", "      - name: press-2\n      - name: press-3\n",
		"  - name: bob\n    token: bob-token\n", "  - name: bob\n    token: carol-token\n"))
	if err == nil || !strings.Contains(err.Error(), `token is taken by user "carol"`) {
		t.Fatalf("reconcile: %v", err)
	}
	p.reg.Do(func(s *registry.State) {
		for _, d := range s.Devices() {
			if d.Name == "press-3" {
				t.Error("the failed reconciliation added press-3")
			}
		}
		if s.User("bob").Token != "bob-token" {
			t.Error("bob's token changed")
		}
	})
}
