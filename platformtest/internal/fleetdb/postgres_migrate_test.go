package fleetdb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
	"github.com/google/go-cmp/cmp"
)

// migrateTemplates are the versions of an app's data template that the
// migration test starts platforms with, one after the other, on the same
// database.
var migrateTemplates = []string{`
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
        - {id: note, dataType: string}
`, `
data:
  tables:
    - tablename: readings
      maintainLatestFlagFor: [note]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
        - {id: note, dataType: string}
        - {id: humidity, dataType: numeric}
    - tablename: extra
      columns:
        - {id: tsp, dataType: timestamp}
  transforms:
    - tablename: warmest
      sql: SELECT note, max(temp) AS temp FROM readings GROUP BY note ORDER BY note
      columns:
        - {id: note, dataType: string}
`, `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: bigint}
        - {id: humidity, dataType: numeric}
`}

// TestMigration: a changed template migrates the realm's schema when the
// next platform opens it: new columns (NULL in the stored rows), new
// tables, new transforms and a new entity key; a removed or retyped column
// is refused, naming them, and nothing changes, unless PostgresAllowDrop.
func TestMigration(t *testing.T) { worldtest.EachPostgres(t, testMigration) }

func testMigration(t *testing.T, url string) {
	prefix := freshPrefix(t, url)
	start := func(version int, opts ...platformtest.PostgresOption) (*platformtest.Platform, *platformtest.Installation, error) {
		t.Helper()
		p, err := platformtest.Start(platformtest.WithStartTime(worldtest.T0), platformtest.WithPostgres(url, append([]platformtest.PostgresOption{platformtest.PostgresSchemaPrefix(prefix)}, opts...)...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(p.Close)
		res, err := p.Apply(&platformtest.Seed{
			Projects:      []platformtest.SeedProject{{Name: "plant", SwarmKey: 2, Devices: []platformtest.SeedDevice{{Name: "press", DeviceKey: 42}}}},
			Apps:          []platformtest.SeedApp{{Name: "sensors", AppKey: 26, DataTemplate: migrateTemplates[version]}},
			Installations: []platformtest.SeedInstallation{{Project: "plant", Device: "press", App: "sensors"}},
		})
		if err != nil {
			return p, nil, err
		}
		return p, res.Installations[0], nil
	}
	p, in, err := start(0)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0, "temp": 20.5, "note": "a"}, map[string]any{"tsp": worldtest.Ms(time.Second), "temp": 22, "note": "b"}); err != nil {
		t.Fatal(err)
	}
	p.Close()

	p, in, err = start(1)
	if err != nil {
		t.Fatalf("adding a column, a table, a transform and an entity key: %v", err)
	}
	if got := worldtest.Col(p.TableRows(in.Realm(), "readings"), "humidity"); !cmp.Equal(got, []any{nil, nil}) {
		t.Errorf("the new column in stored rows: %v", got)
	}
	if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "note": "a", "humidity": 40}); err != nil {
		t.Fatal(err)
	}
	c := worldtest.Connect(t, p, in, client.MSGPACK)
	latest := worldtest.Call(t, c, "history.transformed.readings", worldtest.Q("limit", 10, "filterAnd", worldtest.List(map[string]any{"latest": true})), nil, false).OK(t, "latest").Rows(t)
	if d := cmp.Diff([]any{int64(22), 20.5}, worldtest.Col(latest, "temp")); d != "" {
		t.Errorf("the new entity key merges and answers the latest marker (-want +got):\n%s", d)
	}
	if got := worldtest.Call(t, c, "history.transformed.warmest", worldtest.Q("limit", 10), nil, false).OK(t, "warmest").Rows(t); len(got) != 2 {
		t.Errorf("the new transform: %v", got)
	}
	if err := p.InsertRows(in, "extra", map[string]any{"tsp": worldtest.T0}); err != nil {
		t.Errorf("the new table: %v", err)
	}
	p.Close()

	p, _, err = start(2)
	if err == nil {
		t.Fatal("a template that drops and retypes columns was applied")
	}
	for _, want := range []string{`app "sensors"`, `table "readings"`, `removes column "note"`, `changes column "temp" from double precision to bigint`, "-allow-drop"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q lacks %q", err, want)
		}
	}
	p.Close()

	p, in, err = start(1)
	if err != nil {
		t.Fatal(err)
	}
	if got := worldtest.Col(p.TableRows(in.Realm(), "readings"), "note"); !cmp.Equal(got, []any{"a", "b", "a"}) {
		t.Errorf("a refused migration changed the table: %v", got)
	}
	p.Close()

	p, in, err = start(2, platformtest.PostgresAllowDrop())
	if err != nil {
		t.Fatalf("with PostgresAllowDrop: %v", err)
	}
	rows := p.TableRows(in.Realm(), "readings")
	if len(rows) != 3 || rows[0]["temp"] != nil || rows[2]["humidity"] != int64(40) {
		t.Errorf("after the allowed migration: %v", rows)
	}
	if _, ok := rows[0]["note"]; ok {
		t.Errorf("the dropped column is still there: %v", rows[0])
	}
}

// TestSecretsOutliveThePlatform: the key of secret columns is kept with
// the rows, so the next platform on the same database decrypts the
// secrets the last one stored.
func TestSecretsOutliveThePlatform(t *testing.T) {
	worldtest.EachPostgres(t, testSecretsOutliveThePlatform)
}

func testSecretsOutliveThePlatform(t *testing.T, url string) {
	prefix := freshPrefix(t, url)
	for run := range 2 {
		p, err := platformtest.Start(platformtest.WithPostgres(url, platformtest.PostgresSchemaPrefix(prefix)))
		if err != nil {
			t.Fatal(err)
		}
		pr := p.AddProject("plant", platformtest.Key(2))
		in := p.Install(pr.AddDevice("press", platformtest.Key(42)), p.AddApp("sensors", readerTemplate, platformtest.Key(26)), platformtest.Dev)
		if run == 0 {
			if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0, "pin": "1234"}); err != nil {
				t.Fatal(err)
			}
		}
		rows := p.DecryptedTableRows(in.Realm(), "readings")
		if len(rows) != 1 || rows[0]["pin"] != "1234" {
			t.Errorf("run %d: %v", run, rows)
		}
		p.Close()
	}
}

// TestReconcileWithPostgres: flockd's reconciliation opens the app
// backends of the configuration, so a transform PostgreSQL refuses stops
// it; a realm the configuration no longer has goes with its schema.
func TestReconcileWithPostgres(t *testing.T) { worldtest.EachPostgres(t, testReconcileWithPostgres) }

func testReconcileWithPostgres(t *testing.T, url string) {
	prefix := freshPrefix(t, url)
	dir := t.TempDir()
	seed := func(tpl string, installed bool) *platformtest.Seed {
		s := &platformtest.Seed{
			Projects: []platformtest.SeedProject{{Name: "plant", SwarmKey: 2, Devices: []platformtest.SeedDevice{{Name: "press", DeviceKey: 42}}}},
			Apps:     []platformtest.SeedApp{{Name: "sensors", AppKey: 26, DataTemplate: tpl}},
		}
		if installed {
			s.Installations = []platformtest.SeedInstallation{{Project: "plant", Device: "press", App: "sensors"}}
		}
		return s
	}
	start := func() *platformtest.Platform {
		t.Helper()
		p, err := platformtest.Start(platformtest.WithDataDir(dir), platformtest.WithPostgres(url, platformtest.PostgresSchemaPrefix(prefix)))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	broken := strings.Replace(readerTemplate, "SELECT max(temp) AS temp FROM readings", "SELECT max(tmep) AS temp FROM readings", 1)
	p := start()
	if _, err := p.Reconcile(seed(broken, true)); err == nil || !strings.Contains(err.Error(), `transform "hottest": column "tmep" does not exist`) {
		t.Errorf("reconcile with a broken transform: %v", err)
	}
	p.Close()

	p = start()
	res, err := p.Reconcile(seed(readerTemplate, true))
	if err != nil {
		t.Fatal(err)
	}
	realmName := res.Installations[0].Realm()
	if err := p.InsertRows(res.Installations[0], "readings", map[string]any{"tsp": worldtest.T0, "temp": 20}); err != nil {
		t.Fatal(err)
	}
	p.Close()

	admin := sqlConn(t, url)
	schemaExists := func() bool {
		var n int
		if err := admin.QueryRow(worldtest.Ctx(t), "SELECT count(*) FROM pg_namespace WHERE nspname = $1", schemaOf(prefix, realmName)).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n == 1
	}
	if !schemaExists() {
		t.Fatal("no schema for the installed app")
	}
	p = start()
	defer p.Close()
	if _, err := p.Reconcile(seed(readerTemplate, false)); err != nil {
		t.Fatal(err)
	}
	if schemaExists() {
		t.Errorf("the schema of %s outlived its realm", realmName)
	}
}
