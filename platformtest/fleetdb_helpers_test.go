package platformtest

import (
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
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

// t0 is 2026-01-01T00:00:00Z.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ms returns t0 + d in epoch milliseconds.
func ms(d time.Duration) int64 { return t0.Add(d).UnixMilli() }

// iso returns t0 + d as the platform sends a timestamp: ISO 8601 in UTC
// with milliseconds and Z.
func iso(d time.Duration) string { return t0.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }

// isoMs reads a timestamp the platform sent, which must be an ISO 8601
// text in UTC with milliseconds and Z, as epoch milliseconds.
func isoMs(t *testing.T, v any) int64 {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v (%T), want an ISO 8601 text", v, v)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return at.UnixMilli()
}

// dbFixture is a platform whose app (swarm 2, app 26, as the harness)
// has dbTemplate, installed on device 42 and device 43 in DEV, with a raw
// nexus client joined for each, its rows kept in one store of the
// conformance suite.
type dbFixture struct {
	store  fleetStore
	p      *Platform
	in     *Installation // device 42
	in2    *Installation // device 43
	c      *client.Client
	c2     *client.Client
	realm  string
	serial string
}

func newDB(t *testing.T, s fleetStore) *dbFixture {
	t.Helper()
	p := New(t, append([]Option{WithStartTime(t0.Add(24 * time.Hour))}, s.options(t)...)...)
	pr := p.AddProject("plant", Key(2))
	d1 := pr.AddDevice("press", Key(42), Serial("06a0bf96-a539-4d6a-8471-ac7adc67616e"))
	d2 := pr.AddDevice("lathe", Key(43))
	app := p.AddApp("interop", dbTemplate, Key(26))
	f := &dbFixture{store: s, p: p, in: p.Install(d1, app, Dev), in2: p.Install(d2, app, Dev), serial: d1.Serial()}
	f.realm = f.in.Realm()
	f.c = connect(t, p, f.in, client.MSGPACK)
	f.c2 = connect(t, p, f.in2, client.MSGPACK)
	return f
}

// callResult is a call's answer: its arguments (normalised) or its error.
type callResult struct {
	args     []any
	progress [][]any
	errURI   string
	errArgs  []any
	errKw    map[string]any
}

// call calls uri on c with args [arg] (none when arg is nil) and kwargs.
func call(t *testing.T, c *client.Client, uri string, arg any, kwargs map[string]any, progress bool) callResult {
	t.Helper()
	var args wamp.List
	if arg != nil {
		args = wamp.List{arg}
	}
	return callArgs(t, c, uri, args, kwargs, progress)
}

// callArgs calls uri on c with args and kwargs, asking for progressive
// results when progress is set.
func callArgs(t *testing.T, c *client.Client, uri string, args wamp.List, kwargs map[string]any, progress bool) callResult {
	t.Helper()
	var res callResult
	var cb client.ProgressHandler
	if progress {
		cb = func(r *wamp.Result) { res.progress = append(res.progress, wirevalue.CloneList(r.Arguments)) }
	}
	r, err := c.Call(testCtx(t), uri, nil, args, kwargs, cb)
	if err != nil {
		var re client.RPCError
		if !errors.As(err, &re) {
			t.Fatalf("call %s: %v", uri, err)
		}
		res.errURI, res.errArgs, res.errKw = string(re.Err.Error), wirevalue.CloneList(re.Err.Arguments), wirevalue.CloneDict(re.Err.ArgumentsKw)
		return res
	}
	res.args = wirevalue.CloneList(r.Arguments)
	return res
}

// ok fails the test unless the call succeeded.
func (r callResult) ok(t *testing.T, what string) callResult {
	t.Helper()
	if r.errURI != "" {
		t.Fatalf("%s: %s %v %v", what, r.errURI, r.errArgs, r.errKw)
	}
	return r
}

// refused fails the test unless the call failed with uri.
func (r callResult) refused(t *testing.T, what, uri string) callResult {
	t.Helper()
	if r.errURI != uri {
		t.Fatalf("%s: got %q %v (args %v), want %s", what, r.errURI, r.errArgs, r.args, uri)
	}
	return r
}

// rows returns the rows of a plain read answer.
func (r callResult) rows(t *testing.T) []map[string]any {
	t.Helper()
	if len(r.args) == 0 || r.args[0] == nil {
		return nil
	}
	list, ok := r.args[0].([]any)
	if !ok {
		t.Fatalf("answer %v is not a list of rows", r.args)
	}
	out := make([]map[string]any, len(list))
	for i, e := range list {
		out[i] = e.(map[string]any)
	}
	return out
}

func (f *dbFixture) history(t *testing.T, table string, q map[string]any) []map[string]any {
	t.Helper()
	return call(t, f.c, "history.transformed."+table, q, nil, false).ok(t, "history of "+table).rows(t)
}

// appendRow calls append.2.26.<table> with the device metadata kwargs.
func (f *dbFixture) appendRow(t *testing.T, table string, row any) callResult {
	t.Helper()
	return call(t, f.c, "append.2.26."+table, row, f.meta(), false)
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
// test stored the source rows its SQL computes them from (fleetStore).
func (f *dbFixture) transform(t *testing.T, name string, rows []map[string]any) {
	t.Helper()
	f.store.transform(t, f.p, f.realm, name, rows)
}

// subscribe subscribes c to topic and returns the events' arguments.
func subscribe(t *testing.T, c *client.Client, topic string) <-chan []any {
	t.Helper()
	ch := make(chan []any, 64)
	if err := c.Subscribe(topic, func(e *wamp.Event) { ch <- wirevalue.CloneList(e.Arguments) }, nil); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

// next returns the next event of ch or fails the test.
func nextEvent(t *testing.T, ch <-chan []any, what string) []any {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-testCtx(t).Done():
		t.Fatalf("no event: %s", what)
		return nil
	}
}

// col returns one column of rows, for compact comparisons.
func col(rows []map[string]any, col string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[col]
	}
	return out
}

func q(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func pred(col, op string, value ...any) map[string]any {
	m := map[string]any{"column": col, "operator": op}
	if len(value) == 1 {
		m["value"] = value[0]
	}
	return m
}

// list returns its arguments as a list; never nil, which would travel as
// null.
func list(v ...any) []any {
	if v == nil {
		return []any{}
	}
	return v
}
