package platformtest

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// The official Go SDK (RecordEvolution/ironflock-go) cannot be fetched
// here (the Go module proxy answers 403 for it), so these tests decode
// flockd's answers the way it does, with the same library calls: its
// connection is a nexus client (msgpack by default; the serializers are
// ugorji/go/codec's MsgpackHandle with WriteExt and map[string]any maps,
// and its JsonHandle), each received value is brought to JSON-like Go
// types (officialNormalize), and GetHistory, GetSeriesHistory, a
// transform's read and a table event's row are turned into the app's own
// types by encoding/json: json.Marshal of the rows, then json.Unmarshal
// into a slice of structs whose fields carry json tags (its DecodeRows,
// Decode and Result.Decode). A time.Time field then takes what
// time.Time.UnmarshalJSON reads: an RFC 3339 text, never a number.

// officialMachine is a row of machines as an app using the official SDK
// declares it.
type officialMachine struct {
	Tsp         time.Time  `json:"tsp"`
	DeviceKey   int64      `json:"device_key"`
	Machine     string     `json:"machine"`
	Temperature float64    `json:"temperature"`
	Serviced    *time.Time `json:"serviced"`
}

// officialBucket is a series bucket as such an app declares it.
type officialBucket struct {
	Tsp   time.Time `json:"tsp"`
	Count int64     `json:"COUNT:tsp"`
	Max   float64   `json:"MAX:temperature"`
}

// officialTemplate has a table with an entity key and a timestamp column
// besides tsp, and a transform over it.
const officialTemplate = `
data:
  tables:
    - tablename: machines
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: machine, dataType: string}
        - {id: temperature, dataType: numeric}
        - {id: serviced, dataType: timestamp}
  transforms:
    - tablename: machines_view
      sql: SELECT tsp, machine, temperature, serviced FROM machines ORDER BY tsp DESC
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: machine, dataType: string}
        - {id: temperature, dataType: numeric}
        - {id: serviced, dataType: timestamp}
`

// officialNormalize brings a value nexus decoded to the types the
// official SDK hands an app: nil, bool, string, int64 (uint64 above
// math.MaxInt64), float64, []byte, time.Time (msgpack's timestamp
// extension), []any and map[string]any.
func officialNormalize(v any) any {
	switch x := v.(type) {
	case wamp.List:
		return officialNormalize([]any(x))
	case wamp.Dict:
		return officialNormalize(map[string]any(x))
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = officialNormalize(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = officialNormalize(e)
		}
		return out
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = officialNormalize(e)
		}
		return out
	case nil, bool, string, int64, float64, []byte, time.Time:
		return x
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if u := rv.Uint(); u > math.MaxInt64 {
			return u
		}
		return int64(rv.Uint())
	case reflect.Float32, reflect.Float64:
		return rv.Float()
	}
	return v
}

// officialRows is the official SDK's reading of a history answer: nil
// reads as no rows, a list as rows; anything else fails.
func officialRows(t *testing.T, what string, args wamp.List) []map[string]any {
	t.Helper()
	if len(args) == 0 {
		t.Fatalf("%s: no arguments", what)
	}
	switch v := officialNormalize(args[0]).(type) {
	case nil:
		return []map[string]any{}
	case []any:
		rows := make([]map[string]any, len(v))
		for i, e := range v {
			row, ok := e.(map[string]any)
			if !ok {
				t.Fatalf("%s: row %d is %T, not an object", what, i, e)
			}
			rows[i] = row
		}
		return rows
	default:
		t.Fatalf("%s: the answer is %T, want a list of rows", what, v)
		return nil
	}
}

// officialDecode is the official SDK's DecodeRows (and Decode): through
// encoding/json into the app's type.
func officialDecode[T any](t *testing.T, what string, v any) T {
	t.Helper()
	var out T
	data, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		t.Fatalf("%s: decode as the official SDK does: %v", what, err)
	}
	return out
}

// officialPlatform starts a platform on a store of storetest.Kinds.
func officialPlatform(t *testing.T, kind storetest.Kind) *Platform {
	t.Helper()
	opts := []Option{WithStartTime(worldtest.T0)}
	switch kind {
	case storetest.Memory:
	case storetest.Folder:
		opts = append(opts, WithDataDir(filepath.Join(t.TempDir(), "data")))
	case storetest.Postgres:
		opts = append(opts, WithPostgres(storetest.PostgresURL(t), PostgresScratch()))
	default:
		t.Fatalf("no platform for the store %q", kind)
	}
	return New(t, opts...)
}

// TestOfficialSDKDecodesRows: on every store, over msgpack and JSON,
// flockd's history rows, the latest rows, series buckets, a transform's
// rows and a table event's row decode into time.Time fields as the
// official Go SDK decodes them, to the instants written (milliseconds,
// before 1970 too), and a NULL timestamp into a nil *time.Time.
func TestOfficialSDKDecodesRows(t *testing.T) {
	for _, kind := range storetest.Kinds(t) {
		for _, ser := range []serialize.Serialization{client.MSGPACK, client.JSON} {
			name := map[serialize.Serialization]string{client.MSGPACK: "msgpack", client.JSON: "json"}[ser]
			t.Run(fmt.Sprintf("store=%s/%s", kind, name), func(t *testing.T) { testOfficialSDKDecodesRows(t, kind, ser) })
		}
	}
}

func testOfficialSDKDecodesRows(t *testing.T, kind storetest.Kind, ser serialize.Serialization) {
	p := officialPlatform(t, kind)
	d := p.AddProject("plant", Key(2)).AddDevice("press", Key(42))
	in := p.Install(d, p.AddApp("interop", officialTemplate, Key(26)), Dev)
	c := worldtest.Connect(t, p, in, ser)
	ctx := worldtest.Ctx(t)

	events := make(chan wamp.List, 8)
	if err := c.Subscribe("transformed.machines", func(ev *wamp.Event) { events <- ev.Arguments }, nil); err != nil {
		t.Fatal(err)
	}
	serviced := time.Date(1969, 7, 20, 20, 17, 40, 250_000_000, time.UTC)
	want := []officialMachine{ // oldest first, as a read answers
		{Tsp: worldtest.T0.Add(time.Hour + 123*time.Millisecond), DeviceKey: 42, Machine: "m1", Temperature: 20.5, Serviced: &serviced},
		{Tsp: worldtest.T0.Add(2*time.Hour + 7*time.Millisecond), DeviceKey: 42, Machine: "m2", Temperature: 21},
		// The entity's other columns are taken from its latest row.
		{Tsp: worldtest.T0.Add(3*time.Hour + 999*time.Millisecond), DeviceKey: 42, Machine: "m1", Temperature: 22.25, Serviced: &serviced},
	}
	meta := wamp.Dict{"DEVICE_SERIAL_NUMBER": d.Serial(), "DEVICE_KEY": "42", "DEVICE_NAME": "press"}
	for i, m := range want {
		// The official SDK sends a time.Time as RFC 3339 in UTC.
		row := wamp.Dict{"tsp": m.Tsp.UTC().Format(time.RFC3339Nano), "machine": m.Machine, "temperature": m.Temperature}
		if i == 0 {
			row["serviced"] = m.Serviced.UTC().Format(time.RFC3339Nano)
		}
		if _, err := c.Call(ctx, "append.2.26.machines", nil, wamp.List{row}, meta, nil); err != nil {
			t.Fatalf("append row %d: %v", i, err)
		}
		select {
		case args := <-events:
			got := officialDecode[officialMachine](t, "table event", officialNormalize(args[0]))
			checkOfficialMachine(t, fmt.Sprintf("table event %d", i), got, m)
		case <-ctx.Done():
			t.Fatalf("no table event for row %d", i)
		}
	}

	read := func(what, uri string, query wamp.Dict) []map[string]any {
		t.Helper()
		res, err := c.Call(ctx, uri, nil, wamp.List{query}, nil, nil)
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return officialRows(t, what, res.Arguments)
	}
	history := officialDecode[[]officialMachine](t, "history", read("history", "history.transformed.machines", wamp.Dict{"limit": 10}))
	checkOfficialMachines(t, "history", history, want)

	latest := officialDecode[[]officialMachine](t, "latest", read("latest", "history.transformed.machines",
		wamp.Dict{"limit": 10, "filterAnd": wamp.List{wamp.Dict{"latest": true}}}))
	checkOfficialMachines(t, "latest", latest, want[1:])

	series := officialDecode[[]officialBucket](t, "series", read("series", "history.transformed.series.machines", wamp.Dict{
		"limit": 3, "timeRange": wamp.List{worldtest.T0.Add(time.Hour).Format(time.RFC3339), worldtest.T0.Add(4 * time.Hour).Format(time.RFC3339)},
		"metrics": wamp.List{wamp.Dict{"ref": "tsp", "method": "COUNT"}, wamp.Dict{"ref": "temperature", "method": "MAX"}},
	}))
	wantSeries := []officialBucket{{worldtest.T0.Add(time.Hour), 1, 20.5}, {worldtest.T0.Add(2 * time.Hour), 1, 21}, {worldtest.T0.Add(3 * time.Hour), 1, 22.25}}
	if !slices.EqualFunc(series, wantSeries, func(a, b officialBucket) bool { return a.Tsp.Equal(b.Tsp) && a.Count == b.Count && a.Max == b.Max }) {
		t.Errorf("series buckets: %+v, want %+v", series, wantSeries)
	}

	// The transform's rows: computed from its SQL on PostgreSQL, given to
	// the stores that cannot run it.
	if kind == storetest.Postgres {
		if err := p.RefreshTransform(in.Realm(), "machines_view"); err != nil {
			t.Fatal(err)
		}
	} else {
		var rows []map[string]any
		for _, m := range slices.Backward(want) { // the SQL's order: newest first
			r := map[string]any{"tsp": m.Tsp, "machine": m.Machine, "temperature": m.Temperature, "serviced": nil}
			if m.Serviced != nil {
				r["serviced"] = *m.Serviced
			}
			rows = append(rows, r)
		}
		if err := p.SetTransformRows(in.Realm(), "machines_view", rows); err != nil {
			t.Fatal(err)
		}
	}
	view := officialDecode[[]officialMachine](t, "transform", read("transform", "history.transformed.machines_view", wamp.Dict{"limit": 10}))
	if len(view) != len(want) {
		t.Fatalf("transform: %d rows, want %d: %+v", len(view), len(want), view)
	}
	for i, got := range view { // the view's order, reversed: oldest first
		w := want[i]
		w.DeviceKey = 0 // a transform's columns are its own
		checkOfficialMachine(t, fmt.Sprintf("transform row %d", i), got, w)
	}
}

// checkOfficialMachines compares decoded rows with the rows written, in
// their order.
func checkOfficialMachines(t *testing.T, what string, got, want []officialMachine) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d: %+v", what, len(got), len(want), got)
	}
	for i := range want {
		checkOfficialMachine(t, fmt.Sprintf("%s row %d", what, i), got[i], want[i])
	}
}

// checkOfficialMachine compares a decoded row with the row written: the
// same instants, in UTC.
func checkOfficialMachine(t *testing.T, what string, got, want officialMachine) {
	t.Helper()
	if !got.Tsp.Equal(want.Tsp) || got.Tsp.Location() != time.UTC {
		t.Errorf("%s: tsp %v, want %v in UTC", what, got.Tsp, want.Tsp)
	}
	switch {
	case want.Serviced == nil && got.Serviced != nil:
		t.Errorf("%s: serviced %v, want nil (NULL)", what, got.Serviced)
	case want.Serviced != nil && (got.Serviced == nil || !got.Serviced.Equal(*want.Serviced)):
		t.Errorf("%s: serviced %v, want %v", what, got.Serviced, want.Serviced)
	}
	if got.DeviceKey != want.DeviceKey || got.Machine != want.Machine || got.Temperature != want.Temperature {
		t.Errorf("%s: %+v, want %+v", what, got, want)
	}
}

// TestOfficialSDKDecodesCrossAppRows: a consumed app's history rows (its
// ConnectToApp and GetHistory, on the provider's realm as app_reader)
// decode as the official Go SDK decodes them too, on every store, over
// msgpack and JSON.
func TestOfficialSDKDecodesCrossAppRows(t *testing.T) {
	for _, kind := range storetest.Kinds(t) {
		for _, ser := range []serialize.Serialization{client.MSGPACK, client.JSON} {
			name := map[serialize.Serialization]string{client.MSGPACK: "msgpack", client.JSON: "json"}[ser]
			t.Run(fmt.Sprintf("store=%s/%s", kind, name), func(t *testing.T) {
				p := officialPlatform(t, kind)
				pr := p.AddProject("plant", Key(2))
				weather := p.AddApp("weather", officialTemplate, Key(77))
				dash := p.AddApp("dash", "data:\n  tables: []\nconsumes:\n  - app: weather\n", Key(26))
				provIn := p.Install(pr.AddDevice("station", Key(7)), weather, Dev)
				dashIn := p.Install(pr.AddDevice("panel", Key(42)), dash, Dev)
				p.Grant(pr, dash, "weather")
				at := worldtest.T0.Add(time.Hour + 42*time.Millisecond)
				if err := p.InsertRows(provIn, "machines", map[string]any{"tsp": at, "machine": "m1", "temperature": 19.5}); err != nil {
					t.Fatal(err)
				}
				id, secret := dashIn.Credentials()
				r, err := worldtest.Dial(t, p.URL(), worldtest.DialConfig(provIn.Realm(), id, secret, ser))
				if err != nil {
					t.Fatalf("join the provider's realm: %v", err)
				}
				res, err := r.Call(worldtest.Ctx(t), "history.transformed.machines", nil, wamp.List{wamp.Dict{"limit": 10}}, nil, nil)
				if err != nil {
					t.Fatal(err)
				}
				got := officialDecode[[]officialMachine](t, "cross-app history", officialRows(t, "cross-app history", res.Arguments))
				checkOfficialMachines(t, "cross-app history", got, []officialMachine{{Tsp: at, DeviceKey: 7, Machine: "m1", Temperature: 19.5}})
			})
		}
	}
}
