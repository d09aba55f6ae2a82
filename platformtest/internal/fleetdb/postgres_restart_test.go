package fleetdb_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// restartSeed installs restartTemplate's app on two devices of one
// project (one realm), each seeding rows into the same table.
func restartSeed(tpl string) *platformtest.Seed {
	return &platformtest.Seed{
		Projects: []platformtest.SeedProject{{Name: "plant", SwarmKey: 2, Devices: []platformtest.SeedDevice{{Name: "press", DeviceKey: 42}, {Name: "drill", DeviceKey: 43}}}},
		Apps:     []platformtest.SeedApp{{Name: "sensors", AppKey: 26, DataTemplate: tpl}},
		Installations: []platformtest.SeedInstallation{
			{Project: "plant", Device: "press", App: "sensors", Rows: map[string][]map[string]any{"readings": {
				{"tsp": "2026-01-01T10:00:00Z", "sensor": "s1", "temp": 20},
				{"tsp": "2026-01-01T10:01:00Z", "sensor": "s1", "temp": 21},
			}}},
			{Project: "plant", Device: "drill", App: "sensors", Rows: map[string][]map[string]any{"readings": {
				{"tsp": "2026-01-01T10:00:00Z", "sensor": "s2", "temp": 30},
			}}},
		},
	}
}

// TestSeedRowsOncePerStore: the seed's rows go into a PostgreSQL store
// once, whatever else restarts: platforms that keep their registry in
// memory (flockd -memory -db), each finding a fresh installation, start
// on the same database three times; the second and third neither insert
// the rows again (an entity-key conflict stopped them) nor lose those
// appended. A store whose rows predate the ledger keeps them as the
// seed's.
func TestSeedRowsOncePerStore(t *testing.T) { worldtest.EachPostgres(t, testSeedRowsOncePerStore) }

func testSeedRowsOncePerStore(t *testing.T, url string) {
	prefix := freshPrefix(t, url)
	for i := range 4 {
		if i == 3 { // as a store made before the ledger
			if _, err := sqlConn(t, url).Exec(worldtest.Ctx(t), "DELETE FROM "+prefix+"ironflock.seeded"); err != nil {
				t.Fatal(err)
			}
		}
		p, err := platformtest.Start(platformtest.WithPostgres(url, platformtest.PostgresSchemaPrefix(prefix)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Reconcile(restartSeed(worldtest.RestartTemplate))
		if err != nil {
			p.Close()
			t.Fatalf("start %d: %v", i+1, err)
		}
		realm := res.Installations[0].Realm()
		if n := len(p.TableRows(realm, "readings")); n != 3+i {
			t.Errorf("start %d: %d rows, want the 3 seed rows once and the %d appended", i+1, n, i)
		}
		if err := p.InsertRows(res.Installations[0], "readings", map[string]any{"tsp": time.Date(2026, 1, 2, 0, i, 0, 0, time.UTC), "sensor": "s1", "temp": 22}); err != nil {
			t.Errorf("start %d: append: %v", i+1, err)
		}
		p.Close()
	}
}

// TestFailingTransformAfterAGoodStart: after a good start, a
// configuration whose transform names a missing table is refused before
// anything is kept, naming the app, the transform, the cause and its
// position; the next start with the good configuration finds the
// registry as it was (no new release), the rows and the transform's view.
func TestFailingTransformAfterAGoodStart(t *testing.T) {
	worldtest.EachPostgres(t, testFailingTransformAfterAGoodStart)
}

func testFailingTransformAfterAGoodStart(t *testing.T, url string) {
	prefix := freshPrefix(t, url)
	dir := t.TempDir()
	broken := strings.Replace(worldtest.RestartTemplate, "FROM readings GROUP BY", "FROM nosuch GROUP BY", 1)
	start := func(tpl string) (*platformtest.Platform, *platformtest.SeedResult, *worldtest.SyncBuffer, error) {
		t.Helper()
		logs := &worldtest.SyncBuffer{}
		p, err := platformtest.Start(platformtest.WithDataDir(dir), platformtest.WithPostgres(url, platformtest.PostgresSchemaPrefix(prefix)), platformtest.WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
		if err != nil {
			t.Fatal(err)
		}
		res, err := p.Reconcile(restartSeed(tpl))
		return p, res, logs, err
	}
	perSensor := func(realm string) string {
		t.Helper()
		var got string
		if err := sqlConn(t, url).QueryRow(worldtest.Ctx(t), "SELECT string_agg(sensor || '=' || n, ',' ORDER BY sensor) FROM "+
			pgx.Identifier{schemaOf(prefix, realm), "per_sensor"}.Sanitize()).Scan(&got); err != nil {
			t.Fatal(err)
		}
		return got
	}
	p, res, _, err := start(worldtest.RestartTemplate)
	if err != nil {
		t.Fatal(err)
	}
	realm := res.Installations[0].Realm()
	if err := p.InsertRows(res.Installations[0], "readings", map[string]any{"tsp": "2026-01-02T00:00:00Z", "sensor": "s3", "temp": 1}); err != nil {
		t.Fatal(err)
	}
	p.Close()

	p, _, logs, err := start(broken)
	for _, want := range []string{`app "sensors"`, `transform "per_sensor"`, `relation "nosuch" does not exist`, "line 1, column"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("a transform naming a missing table: %v, want it to say %s", err, want)
		}
	}
	if strings.Contains(logs.String(), "new release") {
		t.Errorf("the refused configuration became a new release:\n%s", logs)
	}
	p.Close()

	p, res, logs, err = start(worldtest.RestartTemplate)
	if err != nil {
		t.Fatalf("the good configuration again: %v", err)
	}
	defer p.Close()
	if strings.Contains(logs.String(), "new release") {
		t.Errorf("the registry kept the refused templates:\n%s", logs)
	}
	if n := len(p.TableRows(res.Installations[0].Realm(), "readings")); n != 4 {
		t.Errorf("%d rows, want the 3 seed rows and the appended one", n)
	}
	if got := perSensor(realm); got != "s1=2,s2=1,s3=1" {
		t.Errorf("per_sensor after the refused start: %q", got)
	}
}

// TestFlockdRefreshRoute: flockd's route recomputes a materialized
// transform on demand: rows appended after the start are in it once the
// route answered, with when it was computed; a viewer may not, an unknown
// transform is 404.
func TestFlockdRefreshRoute(t *testing.T) { worldtest.EachPostgres(t, testFlockdRefreshRoute) }

func testFlockdRefreshRoute(t *testing.T, url string) {
	w := newPGWorld(t, url, worldtest.RestartTemplate)
	pr := w.in.Device().Project()
	w.p.AddUser("alice", worldtest.AliceToken, map[*platformtest.Project]string{pr: platformtest.RoleAdmin})
	w.p.AddUser("bob", worldtest.BobToken, map[*platformtest.Project]string{pr: platformtest.RoleViewer})
	w.insert(t, "readings", map[string]any{"tsp": worldtest.T0, "sensor": "s1", "temp": 1})
	if got := w.read(t, "per_sensor", map[string]any{"limit": 10}); len(got) != 0 {
		t.Fatalf("per_sensor before a refresh: %v (the test needs it stale)", got)
	}
	const path = rest.FlockdPrefix + "/devices/42/apps/26/transforms/per_sensor/refresh"
	var got rest.TransformRefresh
	before := time.Now().UTC()
	worldtest.RESTOK(t, w.p, "POST", path+"?stage=DEV", worldtest.AliceToken, "", 200, &got)
	if got.Realm != w.realm || got.Transform != "per_sensor" || !got.Materialized || got.RefreshedAt == nil || got.RefreshedAt.Before(before.Add(-time.Second)) {
		t.Errorf("answer %+v", got)
	}
	if rows := w.read(t, "per_sensor", map[string]any{"limit": 10}); len(rows) != 1 || rows[0]["sensor"] != "s1" {
		t.Errorf("per_sensor after the refresh: %v", rows)
	}
	worldtest.CheckErrorAnswer(t, worldtest.RESTDo(t, w.p, "POST", path, worldtest.BobToken, ""), http.StatusForbidden, wire.CodeForbidden)
	worldtest.CheckErrorAnswer(t, worldtest.RESTDo(t, w.p, "POST", strings.Replace(path, "per_sensor", "ghost", 1), worldtest.AliceToken, ""), http.StatusNotFound, wire.CodeNotFound)
}

// TestTransformChangeOnARunningPlatform: a configuration that changes
// only a transform's SQL, reconciled on a running platform, takes effect
// at once: the realm's data backend opens again with the new view.
func TestTransformChangeOnARunningPlatform(t *testing.T) {
	worldtest.EachPostgres(t, testTransformChangeOnARunningPlatform)
}

func testTransformChangeOnARunningPlatform(t *testing.T, url string) {
	p := platformtest.New(t, platformtest.WithPostgres(url, platformtest.PostgresScratch()))
	res, err := p.Reconcile(restartSeed(worldtest.RestartTemplate))
	if err != nil {
		t.Fatal(err)
	}
	realm := res.Installations[0].Realm()
	n := func() int {
		t.Helper()
		u, err := p.SQLURL(realm)
		if err != nil {
			t.Fatal(err)
		}
		var n int
		if err := sqlConn(t, u).QueryRow(worldtest.Ctx(t), "SELECT n FROM per_sensor WHERE sensor = 's1'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if got := n(); got != 2 {
		t.Fatalf("per_sensor s1: %d, want 2", got)
	}
	if _, err := p.Reconcile(restartSeed(strings.Replace(worldtest.RestartTemplate, "count(*) AS n", "count(*) * 10 AS n", 1))); err != nil {
		t.Fatal(err)
	}
	if got := n(); got != 20 {
		t.Errorf("per_sensor s1 after its SQL changed: %d, want 20 (the new SQL)", got)
	}
}
