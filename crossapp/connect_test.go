// This file tests opening handles and reading through them: the catalog,
// history, series and feeds of a provider with its secrets masked, the
// session the platform admits, and the cache of handles.

package crossapp_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestConnectReadsSharedData: a consumer with a grant reads the
// provider's shared table — history, series and new rows — with the
// secret column masked, over one app_reader session on the provider's
// realm.
func TestConnectReadsSharedData(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	if err := f.p.InsertRows(f.station, "readings", reading(0, 20), reading(1, 22)); err != nil {
		t.Fatal(err)
	}
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	w, err := apps.Connect(ctx, "Weather")
	if err != nil {
		t.Fatal(err)
	}
	if w.App() != "Weather" || w.AppKey() != 77 || w.Stage() != client.Dev || w.Err() != nil {
		t.Errorf("handle app %q key %d stage %s err %v", w.App(), w.AppKey(), w.Stage(), w.Err())
	}
	col := func(id, name, typ string) crossapp.Column {
		return crossapp.Column{ID: id, Name: name, DataType: typ}
	}
	secret := col("api_key", "Key", "string")
	secret.Secret = true
	wantTables := []crossapp.Entry{{Name: "readings", Description: "Temperature readings", Columns: []crossapp.Column{
		col("tsp", "Time", "timestamp"), col("station", "Station", "string"), col("temp", "Temperature", "numeric"), secret}}}
	if diff := cmp.Diff(wantTables, w.Tables()); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	wantTransforms := []crossapp.Entry{{Name: "hourly", Columns: []crossapp.Column{col("tsp", "", "timestamp"), col("mean", "", "numeric")}}}
	if diff := cmp.Diff(wantTransforms, w.Transforms()); diff != "" {
		t.Errorf("transforms (-want +got):\n%s", diff)
	}

	// The session: the consumer's device, app_reader, on the provider's realm.
	var readers []platformtest.SessionInfo
	for _, s := range f.p.Sessions() {
		if s.Realm == f.station.Realm() {
			readers = append(readers, s)
		}
	}
	if len(readers) != 1 || readers[0].AuthRole != wire.RoleAppReader || readers[0].AppKey != 26 || readers[0].DeviceKey != 42 {
		t.Errorf("sessions on the provider's realm: %+v", readers)
	}

	// History, decoded like the app's own rows.
	got, err := w.GetHistory(ctx, "readings", &client.Query{Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Station string  `json:"station"`
		Temp    float64 `json:"temp"`
		APIKey  string  `json:"api_key"`
	}
	decoded, err := client.DecodeRows[row](got)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{{"north", 20, platformtest.SecretPlaceholder}, {"north", 22, platformtest.SecretPlaceholder}}
	if diff := cmp.Diff(want, decoded); diff != "" {
		t.Errorf("history (-want +got):\n%s", diff)
	}

	// A series of the table.
	series, err := w.GetSeriesHistory(ctx, "readings", client.SeriesQuery{
		Metrics: []client.Metric{{Ref: "temp", Method: client.MAX}}, Limit: 1,
		TimeRange: client.TimeRange{Start: t0},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(series) != 1 {
		t.Fatalf("series %v", series)
	}
	if max, err := client.Decode[float64](series[0]["MAX:temp"]); err != nil || max != 22 {
		t.Errorf("series %v", series)
	}

	// New rows, as the provider's device writes them.
	seen := make(rows, 4)
	sub, err := w.SubscribeToTable(ctx, "readings", seen.handler)
	if err != nil {
		t.Fatal(err)
	}
	station := start(t, f.station.Env())
	if _, err := station.AppendToTable(ctx, "readings", reading(2, 23)); err != nil {
		t.Fatal(err)
	}
	if r := seen.next(t); r["temp"] != int64(23) && r["temp"] != 23.0 || r["api_key"] != platformtest.SecretPlaceholder {
		t.Errorf("row %v", r)
	}
	if err := sub.Unsubscribe(ctx); err != nil {
		t.Error(err)
	}
	if err := w.Close(ctx); err != nil {
		t.Error(err)
	}
	if _, err := w.GetHistory(ctx, "readings", nil); !errors.Is(err, crossapp.ErrClosed) {
		t.Errorf("read after Close: %v", err)
	}
}

// TestConnectSharesOneAttempt: concurrent Connect calls, in any spelling,
// share one discovery call and one session; Close evicts the handle.
func TestConnectSharesOneAttempt(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	const n = 8
	handles := make([]*crossapp.Provider, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			name := "weather"
			if i%2 == 1 {
				name = "WEATHER"
			}
			handles[i], errs[i] = apps.Connect(ctx, name)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || handles[i] != handles[0] {
			t.Fatalf("Connect %d: %p, %v; want the handle %p", i, handles[i], errs[i], handles[0])
		}
	}
	if got := countCalls(f.p, wire.AppAccessResolve); got != 1 {
		t.Errorf("%d resolve calls, want 1", got)
	}
	if got := countSessions(f.p, f.station.Realm()); got != 1 {
		t.Errorf("%d sessions on the provider's realm, want 1", got)
	}
	// Another stage is another handle (here: one that cannot open).
	if _, err := apps.Connect(ctx, "weather", crossapp.Stage(client.Prod)); crossapp.CodeOf(err) != crossapp.CodeProviderNotInstalled {
		t.Errorf("Connect in PROD: %v", err)
	}
	if err := handles[0].Close(ctx); err != nil {
		t.Fatal(err)
	}
	again, err := apps.Connect(ctx, "weather")
	if err != nil {
		t.Fatal(err)
	}
	if again == handles[0] {
		t.Error("Connect after Close returned the closed handle")
	}
	if got := countCalls(f.p, wire.AppAccessResolve); got != 3 {
		t.Errorf("%d resolve calls after Close, want 3", got)
	}
}

// TestImpatientCallerFailsAlone: a caller whose context ends stops
// waiting without failing the attempt it shares; a failed attempt is not
// kept, so the next Connect starts a new one.
func TestImpatientCallerFailsAlone(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)

	// The provider's realm is missing: the attempt waits for it.
	f.p.WithholdRealm(f.station.Realm())
	resolves := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: wire.AppAccessResolve, Times: 1})
	patient := make(chan error, 1)
	var got *crossapp.Provider
	go func() {
		var err error
		got, err = apps.Connect(ctx, "weather")
		patient <- err
	}()
	if err := resolves.Wait(ctx, 1); err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := apps.Connect(short, "weather"); !errors.Is(err, context.Canceled) {
		t.Fatalf("impatient Connect: %v", err)
	}
	f.p.ReleaseRealm(f.station.Realm())
	if err := <-patient; err != nil {
		t.Fatalf("patient Connect: %v", err)
	}
	if got.Err() != nil || countCalls(f.p, wire.AppAccessResolve) != 1 {
		t.Errorf("handle err %v, %d resolve calls", got.Err(), countCalls(f.p, wire.AppAccessResolve))
	}
}

// TestFirstConnectBound: a realm still missing when the connect timeout
// ends fails the opening with client.ErrNotConnected (never with an access
// error), and the failed attempt is not kept.
func TestFirstConnectBound(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	f.p.WithholdRealm(f.station.Realm())
	_, apps := consumer(t, f.dashIn, crossapp.WithConnectTimeout(300*time.Millisecond))
	ctx := ctxT(t)
	_, err := apps.Connect(ctx, "weather")
	if !errors.Is(err, client.ErrNotConnected) || crossapp.CodeOf(err) != "" {
		t.Fatalf("Connect to a missing realm: %v", err)
	}
	if !strings.Contains(err.Error(), wire.ErrNoSuchRealm) {
		t.Errorf("the error does not name the last attempt's refusal: %v", err)
	}
	f.p.ReleaseRealm(f.station.Realm())
	if _, err := apps.Connect(ctx, "weather"); err != nil {
		t.Fatalf("Connect once the realm is back: %v", err)
	}
}
