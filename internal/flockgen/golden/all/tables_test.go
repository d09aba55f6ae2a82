package all_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/flockgen/golden/all"
	"github.com/flockgo/ironflock/secrets"
	"github.com/flockgo/ironflock/typed"
)

// valueCmp compares secrets.Value by what it says, not its insides.
var valueCmp = cmp.Comparer(func(a, b secrets.Value) bool { return a.String() == b.String() && plain(a) == plain(b) })

func plain(v secrets.Value) string { p, _ := v.Plaintext(); return p }

// TestAppendWritesPaths appends a full row and checks what went over the
// wire (the vibration nested at args[0].sensor.vibration), what the
// platform stored (by column id) and what History reads back.
func TestAppendWritesPaths(t *testing.T) {
	f := newFixture(t)
	readings := all.NewReadings(f.c)
	row := all.ReadingsRow{
		Tsp:          at(9, 0),
		Machine:      typed.Ptr("m1"),
		Temperature:  typed.Ptr(21.5),
		VibrationRMS: typed.Ptr(0.25),
		Count:        typed.Ptr(int64(7)),
		Running:      typed.Ptr(true),
		ServicedAt:   typed.Ptr(at(8, 30)),
		Payload:      json.RawMessage(`{"mode":"auto","rpm":1200}`),
		APIKey:       secrets.Set("sk-1"),
		Label:        typed.Ptr("first"),
	}
	if err := readings.Append(f.ctx, row); err != nil {
		t.Fatal(err)
	}
	var sent map[string]any
	for _, m := range f.p.Calls() {
		if m.URI == "append."+f.inst.Env()["SWARM_KEY"]+"."+f.inst.Env()["APP_KEY"]+".readings" {
			sent = m.Args[0].(map[string]any)
		}
	}
	want := map[string]any{
		"tsp": "2026-03-02T09:00:00Z", "machine": "m1", "temperature": 21.5,
		"sensor": map[string]any{"vibration": 0.25}, "count": int64(7), "running": true,
		"serviced_at": "2026-03-02T08:30:00Z", "payload": map[string]any{"mode": "auto", "rpm": int64(1200)},
		"api_key": "sk-1", "label": "first",
	}
	if d := cmp.Diff(want, sent); d != "" {
		t.Errorf("args[0] of the append (-want +got):\n%s", d)
	}
	stored := f.p.DecryptedTableRows(f.inst.Realm(), "readings")
	if len(stored) != 1 || stored[0]["vibration_rms"] != 0.25 || stored[0]["api_key"] != "sk-1" {
		t.Fatalf("stored rows: %v", stored)
	}

	got, err := readings.History(f.ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	wantRow := row
	wantRow.APIKey = secrets.Keep() // reads show the placeholder
	wantRow.DeviceKey, wantRow.AuthID = int64(f.inst.Device().Key()), f.inst.Device().Serial()
	if d := cmp.Diff([]all.ReadingsRow{wantRow}, got, valueCmp); d != "" {
		t.Errorf("History (-want +got):\n%s", d)
	}

	// The struct tags are the read shape: client.DecodeRows gives the same.
	raw, err := f.c.GetHistory(f.ctx, "readings", nil)
	if err != nil {
		t.Fatal(err)
	}
	viaTags, err := client.DecodeRows[all.ReadingsRow](raw)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(viaTags, got, valueCmp); d != "" {
		t.Errorf("DecodeRows and History differ (-DecodeRows +History):\n%s", d)
	}
}

// TestNilFieldsAreLeftOut: a nil field is left out of the write, so on the
// entity table readings the entity's latest value stays (the platform's
// merge insert), and a Keep secret keeps the stored one.
func TestNilFieldsAreLeftOut(t *testing.T) {
	f := newFixture(t)
	readings := all.NewReadings(f.c)
	if err := readings.Append(f.ctx, all.ReadingsRow{Tsp: at(9, 0), Machine: typed.Ptr("m1"), Label: typed.Ptr("kept"), APIKey: secrets.Set("sk-1"), Temperature: typed.Ptr(20.0)}); err != nil {
		t.Fatal(err)
	}
	if err := readings.Append(f.ctx, all.ReadingsRow{Tsp: at(9, 1), Machine: typed.Ptr("m1"), Temperature: typed.Ptr(21.0)}); err != nil {
		t.Fatal(err)
	}
	rows, err := readings.Reveal(f.ctx, &all.ReadingsQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || *rows[0].Temperature != 21 || rows[0].Label == nil || *rows[0].Label != "kept" || plain(rows[0].APIKey) != "sk-1" {
		t.Fatalf("newest row: %+v", rows)
	}
	if rows[0].Count != nil || rows[0].Payload != nil {
		t.Errorf("never written columns are not NULL: count %v, payload %s", rows[0].Count, rows[0].Payload)
	}
	// Clear writes null.
	if err := readings.Append(f.ctx, all.ReadingsRow{Tsp: at(9, 2), Machine: typed.Ptr("m1"), APIKey: secrets.Clear()}); err != nil {
		t.Fatal(err)
	}
	rows, err = readings.Reveal(f.ctx, &all.ReadingsQuery{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !rows[0].APIKey.IsKeep() { // null decodes as Keep
		t.Errorf("cleared secret revealed as %v", rows[0].APIKey)
	}
	if stored := f.p.DecryptedTableRows(f.inst.Realm(), "readings"); stored[2]["api_key"] != nil {
		t.Errorf("cleared secret stored as %v", stored[2]["api_key"])
	}
}

// seed appends six rows of two machines, ten minutes apart.
func seed(t *testing.T, f *fixture) all.ReadingsTable {
	t.Helper()
	readings := all.NewReadings(f.c)
	var rows []all.ReadingsRow
	for i := range 6 {
		m := "m1"
		if i%2 == 1 {
			m = "m2"
		}
		rows = append(rows, all.ReadingsRow{Tsp: at(10, 10*i), Machine: typed.Ptr(m), Temperature: typed.Ptr(20 + float64(i)),
			Label: typed.Ptr([]string{"a", "b", "c"}[i%3]), Running: typed.Ptr(i < 3), APIKey: secrets.Set("sk-" + m)})
	}
	n, err := readings.AppendRows(f.ctx, rows)
	if err != nil || n != 6 {
		t.Fatalf("AppendRows = %d, %v", n, err)
	}
	return readings
}

// temps returns the temperatures of rows.
func temps(rows []all.ReadingsRow) []float64 {
	var out []float64
	for _, r := range rows {
		out = append(out, *r.Temperature)
	}
	return out
}

func TestTypedFilters(t *testing.T) {
	f := newFixture(t)
	readings := seed(t, f)
	for _, tc := range []struct {
		name string
		q    *all.ReadingsQuery
		want []float64
	}{
		{"gt", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Temperature.Gt(23)}, []float64{24, 25}},
		{"in", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Label.In("a", "c")}, []float64{20, 22, 23, 25}},
		{"in none", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Label.In()}, nil},
		{"and", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Running.Eq(true).And(all.Readings.Machine.Eq("m1"))}, []float64{20, 22}},
		{"or", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Temperature.Lt(21).Or(all.Readings.Temperature.Ge(25))}, []float64{20, 25}},
		{"between", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Temperature.Between(21, 23)}, []float64{21, 22}},
		{"like", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Machine.Like("%2")}, []float64{21, 23, 25}},
		{"time range", &all.ReadingsQuery{Limit: 10, TimeRange: client.Between(at(10, 20), at(10, 40))}, []float64{22, 23}},
		{"tsp column", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Tsp.Ge(at(10, 40))}, []float64{24, 25}},
		{"latest per machine", &all.ReadingsQuery{Limit: 10, Where: all.ReadingsLatest()}, []float64{24, 25}},
		{"latest of m1", &all.ReadingsQuery{Limit: 10, Where: typed.And(all.ReadingsLatest(), all.Readings.Machine.Eq("m1"))}, []float64{24}},
		{"device key", &all.ReadingsQuery{Limit: 2, Where: all.Readings.DeviceKey.Eq(int64(f.inst.Device().Key()))}, []float64{24, 25}},
		{"null", &all.ReadingsQuery{Limit: 10, Where: all.Readings.Count.IsNull().And(all.Readings.Payload.IsNull())}, []float64{20, 21, 22, 23, 24, 25}},
	} {
		rows, err := readings.History(f.ctx, tc.q)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d := cmp.Diff(tc.want, temps(rows)); d != "" {
			t.Errorf("%s: temperatures (-want +got):\n%s", tc.name, d)
		}
	}
	// A projection leaves the other columns nil.
	rows, err := readings.History(f.ctx, &all.ReadingsQuery{Limit: 1, Columns: []typed.Field[all.ReadingsRow]{all.Readings.Temperature}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || *rows[0].Temperature != 25 || rows[0].Machine != nil || rows[0].Tsp != at(10, 50) {
		t.Errorf("projection: %+v", rows)
	}
}

func TestSeries(t *testing.T) {
	f := newFixture(t)
	readings := seed(t, f)
	avg, maxT, n := all.Readings.Temperature.Avg(), all.Readings.Temperature.Max(), all.Readings.Tsp.Count()
	rows, err := readings.Series(f.ctx, all.ReadingsSeriesQuery{
		Metrics:   []typed.Measure[all.ReadingsRow]{avg, maxT, n},
		Limit:     10,
		TimeRange: client.TimeRange{Start: at(10, 0), End: at(11, 0)},
		Bucket:    30 * time.Minute,
		GroupBy:   []typed.Group[all.ReadingsRow]{all.Readings.Machine},
	})
	if err != nil {
		t.Fatal(err)
	}
	type bucket struct {
		At       time.Time
		Machine  string
		Avg, Max float64
		N        int64
	}
	var got []bucket
	for _, b := range rows {
		m, _ := all.Readings.Machine.Of(b)
		a, _ := avg.Of(b)
		x, _ := maxT.Of(b)
		c, _ := n.Of(b)
		got = append(got, bucket{b.Tsp, m, a, x, c})
	}
	want := []bucket{
		{at(10, 0), "m1", 21, 22, 2}, {at(10, 0), "m2", 21, 21, 1},
		{at(10, 30), "m1", 24, 24, 1}, {at(10, 30), "m2", 24, 25, 2},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("series (-want +got):\n%s", d)
	}
	if _, err := readings.Series(f.ctx, all.ReadingsSeriesQuery{Metrics: []typed.Measure[all.ReadingsRow]{avg}, Limit: 1,
		TimeRange: client.TimeRange{Start: at(10, 0)}, Where: all.ReadingsLatest()}); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("series with the latest marker: %v, want ErrInvalidArgument", err)
	}
}

func TestSecrets(t *testing.T) {
	f := newFixture(t)
	readings := seed(t, f)
	rows, err := readings.Reveal(f.ctx, &all.ReadingsQuery{Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || plain(rows[0].APIKey) != "sk-m2" || plain(rows[1].APIKey) != "sk-m1" { // newest first
		t.Errorf("Reveal: %+v", rows)
	}
	for _, tc := range []struct {
		candidate string
		q         *all.ReadingsQuery
		match     bool
	}{
		{"sk-m2", nil, true},
		{"sk-m1", nil, false},
		{"sk-m1", &all.ReadingsQuery{Where: all.Readings.Machine.Eq("m1")}, true},
	} {
		res, err := readings.Verify(f.ctx, all.Readings.APIKey, tc.candidate, tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if res.Match != tc.match || res.Checked != 1 {
			t.Errorf("Verify(%s, %v) = %+v, want match %v", tc.candidate, tc.q, res, tc.match)
		}
	}
}

func TestSubscribeAndPublish(t *testing.T) {
	f := newFixture(t)
	readings := all.NewReadings(f.c)
	got := make(chan all.ReadingsEvent, 8)
	sub, err := readings.Subscribe(f.ctx, func(_ context.Context, ev all.ReadingsEvent) { got <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe(context.Background())
	if err := readings.Publish(f.ctx, all.ReadingsRow{Tsp: at(12, 0), Machine: typed.Ptr("m9"), VibrationRMS: typed.Ptr(1.5)}); err != nil {
		t.Fatal(err)
	}
	if err := readings.PublishRows(f.ctx, []all.ReadingsRow{{Tsp: at(12, 1), Machine: typed.Ptr("m9")}, {Tsp: at(12, 2), Machine: typed.Ptr("m8")}}); err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct {
		machine string
		bulk    bool
	}{{"m9", false}, {"m9", true}, {"m8", true}} {
		select {
		case ev := <-got:
			if ev.Err != nil || *ev.Row.Machine != want.machine || ev.Bulk != want.bulk {
				t.Errorf("event %d: %+v, want machine %s bulk %v", i, ev, want.machine, want.bulk)
			}
			if i == 0 && (ev.Row.VibrationRMS == nil || *ev.Row.VibrationRMS != 1.5) {
				t.Errorf("event 0: vibration %v, want 1.5 (written nested, read flat)", ev.Row.VibrationRMS)
			}
		case <-f.ctx.Done():
			t.Fatalf("event %d: %v", i, f.ctx.Err())
		}
	}
}

// TestRefusedBeforeSending: a zero tsp is refused, and nothing is sent.
func TestRefusedBeforeSending(t *testing.T) {
	f := newFixture(t)
	readings := all.NewReadings(f.c)
	f.p.ClearRecorded()
	err := readings.Append(f.ctx, all.ReadingsRow{Machine: typed.Ptr("m1")})
	if !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("Append without tsp: %v, want ErrInvalidArgument", err)
	}
	if _, err := readings.AppendRows(f.ctx, nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("AppendRows of nothing: %v, want ErrInvalidArgument", err)
	}
	if calls := f.p.Calls(); len(calls) != 0 {
		t.Errorf("sent %d calls", len(calls))
	}
}
