package fleetdb_test

import (
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
)

// dbTemplate is the data template of the data backend tests: the harness's
// own tables (docs/fake.md) and a few more for every column type.
const dbTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
        - {id: n, name: Count, dataType: bigint}
        - {id: source, name: Source, dataType: string}
        - {id: ok, name: OK, dataType: boolean}
        - {id: payload, name: Payload, dataType: json}
        - {id: seen, name: Seen, dataType: timestamp}
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
        - {id: api_key, name: API key, dataType: string, secret: true}
    - tablename: paths
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: name, name: Device name, dataType: string, path: kwargs.DEVICE_NAME}
        - {id: second, name: Second argument, dataType: numeric, path: "args[1]"}
        - {id: deep, name: Deep, dataType: numeric, path: "args[0].sensor.value"}
    - tablename: tokens
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: token, name: Token, dataType: string, secret: true}
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temp, name: Temperature, dataType: numeric}
    - tablename: private_stats
      private: true
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: value, name: Value, dataType: numeric}
  transforms:
    - tablename: sensordata_hourly
      sql: >-
        SELECT time_bucket('1 hour', tsp) AS tsp, avg(temperature) AS avg_temp, min(source) AS label, min(n) AS extra
        FROM sensordata GROUP BY 1 ORDER BY 1 DESC
      columns:
        - {id: tsp, name: Hour, dataType: timestamp}
        - {id: avg_temp, name: Average, dataType: numeric}
        - {id: label, name: Label, dataType: string}
`

// dbFixture is a platform whose app (swarm 2, app 26, as the harness)
// has dbTemplate, installed on device 42 and device 43 in DEV, with a raw
// nexus client joined for each, its rows kept in one store of the
// conformance suite.
type dbFixture struct {
	store  worldtest.Store[platformtest.Option]
	p      *platformtest.Platform
	in     *platformtest.Installation // device 42
	in2    *platformtest.Installation // device 43
	c      *client.Client
	c2     *client.Client
	realm  string
	serial string
}

func newDB(t *testing.T, s worldtest.Store[platformtest.Option]) *dbFixture {
	t.Helper()
	p := platformtest.New(t, append([]platformtest.Option{platformtest.WithStartTime(worldtest.T0.Add(24 * time.Hour))}, s.Options(t)...)...)
	pr := p.AddProject("plant", platformtest.Key(2))
	d1 := pr.AddDevice("press", platformtest.Key(42), platformtest.Serial("06a0bf96-a539-4d6a-8471-ac7adc67616e"))
	d2 := pr.AddDevice("lathe", platformtest.Key(43))
	app := p.AddApp("interop", dbTemplate, platformtest.Key(26))
	f := &dbFixture{store: s, p: p, in: p.Install(d1, app, platformtest.Dev), in2: p.Install(d2, app, platformtest.Dev), serial: d1.Serial()}
	f.realm = f.in.Realm()
	f.c = worldtest.Connect(t, p, f.in, client.MSGPACK)
	f.c2 = worldtest.Connect(t, p, f.in2, client.MSGPACK)
	return f
}

func (f *dbFixture) history(t *testing.T, table string, q map[string]any) []map[string]any {
	t.Helper()
	return worldtest.Call(t, f.c, "history.transformed."+table, q, nil, false).OK(t, "history of "+table).Rows(t)
}

// appendRow calls append.2.26.<table> with the device metadata kwargs.
func (f *dbFixture) appendRow(t *testing.T, table string, row any) worldtest.CallResult {
	t.Helper()
	return worldtest.Call(t, f.c, "append.2.26."+table, row, f.meta(), false)
}

// meta is the device metadata an SDK adds to writes (docs/wire.md §3).
func (f *dbFixture) meta() map[string]any {
	return map[string]any{"DEVICE_SERIAL_NUMBER": f.serial, "DEVICE_KEY": "42", "DEVICE_NAME": "press"}
}

// insert stores rows directly, failing the test on an error.
func (f *dbFixture) insert(t *testing.T, table string, rows ...map[string]any) {
	t.Helper()
	if err := f.p.InsertRows(f.in, table, rows...); err != nil {
		t.Fatal(err)
	}
}

// transform makes a transform hold rows, in the view's order, after the
// test stored the source rows its SQL computes them from (worldtest.Store).
func (f *dbFixture) transform(t *testing.T, name string, rows []map[string]any) {
	t.Helper()
	f.store.Transform(t, f.p, f.realm, name, rows)
}

// backends are the facade's options of each backend for worldtest's
// conformance list.
var backends = worldtest.Backends[platformtest.Option]{
	DataDir: platformtest.WithDataDir,
	Postgres: func(url string) platformtest.Option {
		return platformtest.WithPostgres(url, platformtest.PostgresScratch())
	},
}
