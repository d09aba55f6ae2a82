package worldtest

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
const DBTemplate = `
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
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ms returns t0 + d in epoch milliseconds.
func Ms(d time.Duration) int64 { return T0.Add(d).UnixMilli() }

// iso returns t0 + d as the platform sends a timestamp: ISO 8601 in UTC
// with milliseconds and Z.
func ISO(d time.Duration) string { return T0.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }

// isoMs reads a timestamp the platform sent, which must be an ISO 8601
// text in UTC with milliseconds and Z, as epoch milliseconds.
func ISOMs(t *testing.T, v any) int64 {
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

// callResult is a call's answer: its arguments (normalised) or its error.
type CallResult struct {
	Args     []any
	Progress [][]any
	ErrURI   string
	ErrArgs  []any
	ErrKw    map[string]any
}

// call calls uri on c with args [arg] (none when arg is nil) and kwargs.
func Call(t *testing.T, c *client.Client, uri string, arg any, kwargs map[string]any, progress bool) CallResult {
	t.Helper()
	var args wamp.List
	if arg != nil {
		args = wamp.List{arg}
	}
	return CallArgs(t, c, uri, args, kwargs, progress)
}

// callArgs calls uri on c with args and kwargs, asking for progressive
// results when progress is set.
func CallArgs(t *testing.T, c *client.Client, uri string, args wamp.List, kwargs map[string]any, progress bool) CallResult {
	t.Helper()
	var res CallResult
	var cb client.ProgressHandler
	if progress {
		cb = func(r *wamp.Result) { res.Progress = append(res.Progress, wirevalue.CloneList(r.Arguments)) }
	}
	r, err := c.Call(Ctx(t), uri, nil, args, kwargs, cb)
	if err != nil {
		var re client.RPCError
		if !errors.As(err, &re) {
			t.Fatalf("call %s: %v", uri, err)
		}
		res.ErrURI, res.ErrArgs, res.ErrKw = string(re.Err.Error), wirevalue.CloneList(re.Err.Arguments), wirevalue.CloneDict(re.Err.ArgumentsKw)
		return res
	}
	res.Args = wirevalue.CloneList(r.Arguments)
	return res
}

// ok fails the test unless the call succeeded.
func (r CallResult) OK(t *testing.T, what string) CallResult {
	t.Helper()
	if r.ErrURI != "" {
		t.Fatalf("%s: %s %v %v", what, r.ErrURI, r.ErrArgs, r.ErrKw)
	}
	return r
}

// refused fails the test unless the call failed with uri.
func (r CallResult) Refused(t *testing.T, what, uri string) CallResult {
	t.Helper()
	if r.ErrURI != uri {
		t.Fatalf("%s: got %q %v (args %v), want %s", what, r.ErrURI, r.ErrArgs, r.Args, uri)
	}
	return r
}

// rows returns the rows of a plain read answer.
func (r CallResult) Rows(t *testing.T) []map[string]any {
	t.Helper()
	if len(r.Args) == 0 || r.Args[0] == nil {
		return nil
	}
	list, ok := r.Args[0].([]any)
	if !ok {
		t.Fatalf("answer %v is not a list of rows", r.Args)
	}
	out := make([]map[string]any, len(list))
	for i, e := range list {
		out[i] = e.(map[string]any)
	}
	return out
}

// subscribe subscribes c to topic and returns the events' arguments.
func Subscribe(t *testing.T, c *client.Client, topic string) <-chan []any {
	t.Helper()
	ch := make(chan []any, 64)
	if err := c.Subscribe(topic, func(e *wamp.Event) { ch <- wirevalue.CloneList(e.Arguments) }, nil); err != nil {
		t.Fatalf("subscribe %s: %v", topic, err)
	}
	return ch
}

// next returns the next event of ch or fails the test.
func NextEvent(t *testing.T, ch <-chan []any, what string) []any {
	t.Helper()
	select {
	case e := <-ch:
		return e
	case <-Ctx(t).Done():
		t.Fatalf("no event: %s", what)
		return nil
	}
}

// col returns one column of rows, for compact comparisons.
func Col(rows []map[string]any, col string) []any {
	out := make([]any, len(rows))
	for i, r := range rows {
		out[i] = r[col]
	}
	return out
}

func Q(kv ...any) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i].(string)] = kv[i+1]
	}
	return m
}

func Pred(col, op string, value ...any) map[string]any {
	m := map[string]any{"column": col, "operator": op}
	if len(value) == 1 {
		m["value"] = value[0]
	}
	return m
}

// list returns its arguments as a list; never nil, which would travel as
// null.
func List(v ...any) []any {
	if v == nil {
		return []any{}
	}
	return v
}
