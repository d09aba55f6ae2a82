// This file tests table operations end to end against the fake data
// backend.

package client_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

const sensorTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
        - {id: n, name: Count, dataType: bigint}
        - {id: source, name: Source, dataType: string}
    - tablename: machines
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
`

// tableFleet is a platform whose app has the sensor template, installed on
// two devices.
func tableFleet(t *testing.T) *fleet {
	t.Helper()
	p := platformtest.New(t)
	app := p.AddApp("tables", sensorTemplate)
	return &fleet{p: p, app: app,
		a: p.Install(p.AddDevice("device-a"), app, platformtest.Dev),
		b: p.Install(p.AddDevice("device-b"), app, platformtest.Dev)}
}

type sensorRow struct {
	Tsp         time.Time `json:"tsp"`
	Temperature float64   `json:"temperature"`
	N           int64     `json:"n"`
	Source      string    `json:"source,omitempty"`
	DeviceKey   int       `json:"device_key,omitempty"`
	AuthID      string    `json:"authid,omitempty"`
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// isoT is the wire form of a timestamp the platform sends: ISO 8601 in UTC
// with milliseconds and Z.
func isoT(at time.Time) string { return at.UTC().Format("2006-01-02T15:04:05.000Z") }

func TestTableRoundTrip(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	res, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 21.5, N: 3, Source: "lab"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{map[string]any{"success": true}}, res.Args); diff != "" {
		t.Errorf("append answer (-want +got):\n%s", diff)
	}
	rows, err := c.GetHistory(ctx, "sensordata", nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []client.Row{{"tsp": isoT(t0), "temperature": 21.5, "n": int64(3), "source": "lab",
		"device_key": int64(f.a.Device().Key()), "authid": f.a.Device().Serial()}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}
	typed, err := client.DecodeRows[sensorRow](rows)
	if err != nil {
		t.Fatal(err)
	}
	if !typed[0].Tsp.Equal(t0) || typed[0].AuthID != f.a.Device().Serial() {
		t.Errorf("decoded = %+v", typed[0])
	}
}

func TestHistoryQueryThroughSDK(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	var batch []sensorRow
	for i := range 20 {
		batch = append(batch, sensorRow{Tsp: t0.Add(time.Duration(i) * time.Minute), Temperature: float64(i), N: int64(i % 3)})
	}
	br, err := c.AppendRowsToTable(ctx, "sensordata", batch)
	if err != nil {
		t.Fatal(err)
	}
	if *br != (client.BulkResult{Success: true, Count: 20}) {
		t.Errorf("bulk result = %+v", br)
	}
	rows, err := c.GetHistory(ctx, "sensordata", &client.Query{
		Limit: 3, Offset: 1,
		TimeRange: client.Between(t0, t0.Add(15*time.Minute)),
		FilterAnd: []client.Filter{client.Where("n", "IN", []int{0, 1})},
		Columns:   []string{"temperature"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Rows 0..14 in range, n in {0,1}: 0,1,3,4,6,7,9,10,12,13; newest first
	// after offset 1: 12,10,9 → ascending 9,10,12.
	var temps []float64
	for _, r := range rows {
		v, err := client.Decode[float64](r["temperature"])
		if err != nil {
			t.Fatal(err)
		}
		temps = append(temps, v)
		if _, ok := r["n"]; ok {
			t.Errorf("projection returned n: %v", r)
		}
	}
	if diff := cmp.Diff([]float64{9, 10, 12}, temps); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}

func TestLatestMarkerThroughSDK(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	for i, s := range []struct{ m, st string }{{"m1", "idle"}, {"m2", "idle"}, {"m1", "running"}, {"m2", "deleted"}} {
		if _, err := c.AppendToTable(ctx, "machines", map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second), "machine": s.m, "state": s.st}); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := c.GetHistory(ctx, "machines", &client.Query{FilterAnd: []client.Filter{client.Latest(), client.Where("state", "!=", "deleted")}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["machine"] != "m1" || rows[0]["state"] != "running" {
		t.Errorf("latest rows = %v, want m1 running only", rows)
	}
}

func TestPublishedRowWithoutTspIsLogged(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	if err := c.PublishToTable(ctx, "sensordata", map[string]any{"temperature": 3}); err != nil {
		t.Fatalf("publish is acknowledged by the router even though the row is dropped: %v", err)
	}
	var logs []client.Row
	eventually(t, 10*time.Second, "error-logs row", func() bool {
		var err error
		logs, err = c.GetHistory(ctx, "error-logs", nil)
		return err == nil && len(logs) > 0
	})
	if logs[0]["source"] != "system" {
		t.Errorf("error-logs row = %v, want source system", logs[0])
	}
	rows, err := c.GetHistory(ctx, "sensordata", nil)
	if err != nil || len(rows) != 0 {
		t.Errorf("the row without tsp was stored: %v %v", rows, err)
	}
}

func TestAppendWithoutTspExplained(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	_, err := c.AppendToTable(ctxT(t), "sensordata", map[string]any{"temperature": 3})
	if client.WampURI(err) != "wamp.error.runtime_error" || !strings.Contains(err.Error(), "tsp") {
		t.Fatalf("err = %v, want runtime_error with a tsp hint", err)
	}
}

func TestBulkAppendIsAtomic(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	_, err := c.AppendRowsToTable(ctx, "sensordata", []map[string]any{{"tsp": t0, "temperature": 1}, {"temperature": 2}})
	if err == nil {
		t.Fatal("a batch with a row without tsp was accepted")
	}
	rows, err := c.GetHistory(ctx, "sensordata", nil)
	if err != nil || len(rows) != 0 {
		t.Fatalf("rows after the refused batch: %v, %v", rows, err)
	}
	if _, err := c.AppendRowsToTable(ctx, "sensordata", []sensorRow{}); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("empty batch: %v", err)
	}
}

func TestReportErrorReadableAndStreamed(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	watcher := connect(t, f.b)
	ctx := ctxT(t)
	got := make(chan *client.TableEvent, 4)
	sub, err := watcher.SubscribeToTable(ctx, "error-logs", func(_ context.Context, ev *client.TableEvent) { got <- ev })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe(ctx)
	if _, err := c.ReportError(ctx, errors.New("valve stuck"), client.ErrorLevel(client.LevelWarn), client.AppendReport()); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-got:
		if ev.Row["msg"] != "valve stuck" || ev.Row["level"] != "warn" || ev.Row["source"] != "app" {
			t.Errorf("streamed row = %v", ev.Row)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no row on transformed.error-logs")
	}
	if err := c.PublishToTable(ctx, "error-logs", map[string]any{"tsp": t0, "msg": "x"}); err != nil {
		t.Fatal(err)
	}
	rows, err := c.GetHistory(ctx, "error-logs", &client.Query{FilterAnd: []client.Filter{client.Where("msg", "=", "valve stuck")}})
	if err != nil || len(rows) != 1 || rows[0]["user_message"] != "valve stuck" {
		t.Fatalf("history = %v, %v", rows, err)
	}
}

func TestSubscribeToTableUnrollsBulk(t *testing.T) {
	f := tableFleet(t)
	writer := connect(t, f.a)
	reader := connect(t, f.b)
	ctx := ctxT(t)
	var mu sync.Mutex
	var seen []float64
	var bulk []bool
	done := make(chan struct{})
	sub, err := reader.SubscribeToTable(ctx, "sensordata", func(_ context.Context, ev *client.TableEvent) {
		mu.Lock()
		defer mu.Unlock()
		v, _ := client.Decode[float64](ev.Row["temperature"])
		seen = append(seen, v)
		bulk = append(bulk, ev.Bulk)
		if len(seen) == 4 {
			close(done)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := writer.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 1}); err != nil {
		t.Fatal(err)
	}
	if err := writer.PublishRowsToTable(ctx, "sensordata", []sensorRow{{Tsp: t0.Add(time.Second), Temperature: 2}, {Tsp: t0.Add(2 * time.Second), Temperature: 3}, {Tsp: t0.Add(3 * time.Second), Temperature: 4}}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("rows seen: %v", seen)
	}
	mu.Lock()
	if diff := cmp.Diff([]float64{1, 2, 3, 4}, seen); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]bool{false, true, true, true}, bulk); diff != "" {
		t.Errorf("bulk flags (-want +got):\n%s", diff)
	}
	mu.Unlock()
	if err := sub.Unsubscribe(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case <-sub.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("delivery did not end")
	}
}

func TestAppendDuringRestart(t *testing.T) {
	f := tableFleet(t)
	st := newStates()
	c := connect(t, f.a, st.option())
	f.p.Down()
	st.await(t, client.StateReconnecting, 10*time.Second)
	waiting := onWait(c)
	errc := make(chan error, 1)
	go func() {
		_, err := c.AppendToTable(context.Background(), "sensordata", sensorRow{Tsp: t0, Temperature: 9})
		errc <- err
	}()
	<-waiting // issued while disconnected: it never left the client
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Fatalf("append during the outage: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("append did not complete within the window")
	}
	rows, err := c.GetHistory(ctxT(t), "sensordata", nil)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows = %v, %v", rows, err)
	}
	if n := count(f.p, platformtest.KindCall, appendURI(f.a, "sensordata")); n != 1 {
		t.Errorf("append sent %d times, want once", n)
	}
}

func TestCallNotServedYetIsRetried(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	uri := "append." + f.a.Env()["SWARM_KEY"] + "." + f.a.Env()["APP_KEY"] + ".sensordata"
	cancel := f.p.Refuse(platformtest.Refusal{Kind: platformtest.KindCall, URI: uri, Error: "wamp.error.no_such_procedure", Times: 1})
	defer cancel()
	if _, err := c.AppendToTable(ctxT(t), "sensordata", sensorRow{Tsp: t0, Temperature: 1}); err != nil {
		t.Fatalf("append refused once as not served yet: %v", err)
	}
	n := 0
	for _, m := range f.p.Calls() {
		if m.URI == uri {
			n++
		}
	}
	if n != 2 {
		t.Errorf("append sent %d times, want 2 (refused, then retried)", n)
	}
}

func TestUndeclaredTable(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	start := time.Now()
	_, err := c.GetHistory(ctx, "nosuchtable", nil)
	if !errors.Is(err, client.ErrUnknownTable) || client.WampURI(err) != "wamp.error.no_such_procedure" {
		t.Fatalf("err = %v, want ErrUnknownTable keeping wamp.error.no_such_procedure", err)
	}
	if !strings.Contains(err.Error(), `"nosuchtable" is not declared in the app's data template`) {
		t.Errorf("message does not name the table: %v", err)
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("took the whole reconnect window to give up")
	}
	if _, err := c.AppendToTable(ctx, "nosuchtable", sensorRow{Tsp: t0}); !errors.Is(err, client.ErrUnknownTable) {
		t.Errorf("append: %v", err)
	}
}

func TestSeriesThroughSDK(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	var batch []sensorRow
	for i := range 6 {
		batch = append(batch, sensorRow{Tsp: t0.Add(time.Duration(i) * 10 * time.Minute), Temperature: float64(10 + i)})
	}
	if _, err := c.AppendRowsToTable(ctx, "sensordata", batch); err != nil {
		t.Fatal(err)
	}
	rows, err := c.GetSeriesHistory(ctx, "sensordata", client.SeriesQuery{
		Metrics:   []client.Metric{{Ref: "temperature", Method: client.AVG}, {Ref: "temperature", Method: client.MAX}},
		Limit:     10,
		TimeRange: client.TimeRange{Start: t0, End: t0.Add(time.Hour)},
		Bucket:    30 * time.Minute,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []client.Row{
		{"tsp": isoT(t0), "AVG:temperature": int64(11), "MAX:temperature": int64(12)},
		{"tsp": isoT(t0.Add(30 * time.Minute)), "AVG:temperature": int64(14), "MAX:temperature": int64(15)},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("series (-want +got):\n%s", diff)
	}

	// Without start, the series reads from the table's first row: the one
	// bucket starts at its tsp.
	rows, err = c.GetSeriesHistory(ctx, "sensordata", client.SeriesQuery{
		Metrics:   []client.Metric{{Ref: "temperature", Method: client.COUNT}, {Ref: "temperature", Method: client.MIN}},
		Limit:     1,
		TimeRange: client.TimeRange{End: t0.Add(30 * time.Minute)},
	})
	if err != nil {
		t.Fatal(err)
	}
	want = []client.Row{{"tsp": isoT(t0), "COUNT:temperature": int64(3), "MIN:temperature": int64(10)}}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("series from the first row (-want +got):\n%s", diff)
	}
}

func TestChunkedHistoryThroughSDK(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	var rows []map[string]any
	for i := range 300 {
		rows = append(rows, map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second), "n": i, "source": strings.Repeat("x", 20)})
	}
	if err := f.p.InsertRows(f.a, "sensordata", rows...); err != nil {
		t.Fatal(err)
	}
	f.p.SetChunkBudget(f.a.Realm(), "sensordata", 1024) // forces many chunks
	got, err := c.GetHistory(ctx, "sensordata", &client.Query{Limit: 250, Offset: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 250 {
		t.Fatalf("got %d rows", len(got))
	}
	for i, r := range got {
		// newest 260 minus the 10 newest: n 40..289, ascending
		if n, _ := client.Decode[int](r["n"]); n != 40+i {
			t.Fatalf("row %d has n=%d, want %d: chunks reassembled out of order", i, n, 40+i)
		}
	}
	// Without progressive results the same read is refused as too large;
	// the SDK always asks for them, so check the refusal on the wire shape
	// through a plain Call.
	_, err = c.Call(ctx, "history.transformed.sensordata", map[string]any{"limit": 250, "offset": 0})
	if client.WampURI(err) != "sys.dataservice.error.result_too_large" {
		t.Errorf("plain call of an oversize read: %v", err)
	}
}

// TestStorageRefusalKeepsURI refuses writes: appends get the refusal's URI
// and a publication is acknowledged but dropped before the router, so it
// can never reach the data backend, even once writes are accepted again.
func TestStorageRefusalKeepsURI(t *testing.T) {
	f := tableFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	refusedPublish := make(chan struct{}, 1) // the data backend has handled the publication (refuse.go)
	if _, err := c.SubscribeToDataErrors(ctx, "sensordata", func(_ context.Context, e *client.DataError) {
		if e.Operation == client.DataErrorPublish {
			refusedPublish <- struct{}{}
		}
	}); err != nil {
		t.Fatal(err)
	}
	f.p.RefuseWrites(f.a.Realm(), platformtest.StorageFull)
	_, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 1})
	if client.WampURI(err) != "sys.dataservice.error.storage_full" {
		t.Fatalf("err = %v, want sys.dataservice.error.storage_full", err)
	}
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.Op != "AppendToTable" || !strings.Contains(oe.URI, "sensordata") {
		t.Errorf("error does not name the operation and the procedure: %v", err)
	}
	if err := c.PublishToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 2}); err != nil {
		t.Errorf("a refused publication is dropped silently, the router still acknowledges: %v", err)
	}
	// The router acknowledges the publication before the data backend
	// handles it: writes are accepted again only once it was refused.
	select {
	case <-refusedPublish:
	case <-ctx.Done():
		t.Fatal("the refused publication was never reported")
	}
	f.p.RefuseWrites(f.a.Realm(), platformtest.AcceptWrites)
	if _, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0, Temperature: 3}); err != nil {
		t.Fatal(err)
	}
	// The append is answered once the row is stored: the rows are final.
	rows := f.p.TableRows(f.a.Realm(), "sensordata")
	if len(rows) != 1 {
		t.Fatalf("stored rows = %v, want only the accepted one", rows)
	}
	if temp, err := client.Decode[float64](rows[0]["temperature"]); err != nil || temp != 3 {
		t.Errorf("stored row = %v, want the accepted one (temperature 3)", rows[0])
	}
	topic := f.a.Env()["SWARM_KEY"] + "." + f.a.Env()["APP_KEY"] + ".sensordata"
	if n := count(f.p, platformtest.KindPublish, topic); n != 1 {
		t.Errorf("the refused publication was recorded %d times, want once", n)
	}
}
