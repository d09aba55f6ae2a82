package platformtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

const providerTemplate = `
data:
  tables:
    - tablename: readings
      description: Temperature readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temp, name: Temperature, dataType: numeric}
        - {id: api_key, name: Key, dataType: string, secret: true}
    - tablename: private_stats
      private: true
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: n, dataType: bigint}
  transforms:
    - tablename: hourly
      sql: SELECT time_bucket('1 hour', tsp) AS tsp, avg(temp) AS mean FROM readings GROUP BY 1 ORDER BY 1 DESC
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: mean, dataType: numeric}
`

const consumerTemplate = `
data:
  tables:
    - tablename: notes
      columns:
        - {id: tsp, dataType: timestamp}
consumes:
  - app: Weather
`

// crossFixture is a project with a provider app "weather" (installed in
// DEV on one device), a consumer "dash" (installed in DEV on another) that
// consumes it, and a consumer "all" that consumes "*", on a platform whose
// rows are in one store of the conformance suite (worldtest.Backends).
// The tests of discovery read no rows and take the memory store.
type crossFixture struct {
	p                    *Platform
	pr                   *Project
	weather, dash, all   *App
	provIn, dashIn, allI *Installation
}

func newCross(t *testing.T, s worldtest.Store[Option]) *crossFixture {
	t.Helper()
	p := New(t, s.Options(t)...)
	pr := p.AddProject("plant", Key(2))
	f := &crossFixture{p: p, pr: pr}
	f.weather = p.AddApp("weather", providerTemplate, Key(77))
	f.dash = p.AddApp("dash", consumerTemplate, Key(26))
	f.all = p.AddApp("all", "data:\n  tables: []\nconsumes:\n  - app: \"*\"\n", Key(30))
	f.provIn = p.Install(pr.AddDevice("station", Key(7)), f.weather, Dev)
	d := pr.AddDevice("panel", Key(42))
	f.dashIn = p.Install(d, f.dash, Dev)
	f.allI = p.Install(d, f.all, Dev)
	return f
}

// joinAs joins realm with in's per-app credential.
func joinAs(t *testing.T, p *Platform, in *Installation, realm string) (*client.Client, error) {
	t.Helper()
	id, secret := in.Credentials()
	return worldtest.Dial(t, p.URL(), worldtest.DialConfig(realm, id, secret, client.MSGPACK))
}

// TestResolve: discovery refuses in the documented order and answers the
// shared catalog per stage, echoing the caller's spelling.
func TestResolve(t *testing.T) {
	f := newCross(t, backends.Store(t, storetest.Memory))
	c := worldtest.Connect(t, f.p, f.dashIn, client.MSGPACK)
	resolve := func(name any) worldtest.CallResult {
		return worldtest.Call(t, c, wire.AppAccessResolve, map[string]any{"app": name}, nil, false)
	}
	resolve("weather").Refused(t, "without a grant", wire.ErrAppAccessNoGrant)
	f.p.Grant(f.pr, f.dash, "weather")
	got := resolve("WEATHER").OK(t, "resolve").Args[0].(map[string]any)
	col := func(id, name, typ string) map[string]any {
		return map[string]any{"id": id, "name": name, "description": "", "dataType": typ}
	}
	secret := col("api_key", "Key", "string")
	secret["secret"] = true
	catalog := map[string]any{
		"tables": []any{map[string]any{"tablename": "readings", "description": "Temperature readings",
			"columns": []any{col("tsp", "Time", "timestamp"), col("temp", "Temperature", "numeric"), secret}}},
		"transforms": []any{map[string]any{"tablename": "hourly", "columns": []any{col("tsp", "", "timestamp"), col("mean", "", "numeric")}}},
	}
	want := map[string]any{"app": "WEATHER", "provider_app_key": int64(77), "stages": map[string]any{"dev": catalog}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resolve (-want +got):\n%s", diff)
	}
	// A PROD backend adds the prod stage.
	f.p.Install(f.p.DeviceByKey(7), f.weather, Prod)
	if stages := resolve("weather").OK(t, "resolve").Args[0].(map[string]any)["stages"].(map[string]any); len(stages) != 2 {
		t.Errorf("stages %v, want dev and prod", stages)
	}

	all := worldtest.Connect(t, f.p, f.allI, client.MSGPACK)
	f.p.Grant(f.pr, f.all, Wildcard)
	worldtest.Call(t, all, wire.AppAccessResolve, map[string]any{"app": "nosuch"}, nil, false).Refused(t, "unknown app", wire.ErrAppAccessUnknownApp)
	lonely := f.p.AddApp("lonely", providerTemplate)
	_ = lonely
	worldtest.Call(t, all, wire.AppAccessResolve, map[string]any{"app": "lonely"}, nil, false).Refused(t, "no backend", wire.ErrAppAccessNotInstalled)
	resolve(7).Refused(t, "a name that is not a string", wire.ErrInvalidArgument)
	worldtest.Call(t, c, wire.AppAccessResolve, nil, nil, false).Refused(t, "no args", wire.ErrInvalidArgument)
}

// TestList: listing needs the wildcard grant and names every other app of
// the project that shares something, in lower case.
func TestList(t *testing.T) {
	f := newCross(t, backends.Store(t, storetest.Memory))
	c := worldtest.Connect(t, f.p, f.allI, client.MSGPACK)
	worldtest.Call(t, c, wire.AppAccessList, nil, nil, false).Refused(t, "without the wildcard grant", wire.ErrAppAccessNoGrant)
	f.p.Grant(f.pr, f.all, Wildcard)
	got := worldtest.Call(t, c, wire.AppAccessList, nil, nil, false).OK(t, "list").Args[0].([]any)
	var names []string
	for _, e := range got {
		names = append(names, e.(map[string]any)["app"].(string))
	}
	// dash shares its table notes; weather its readings and hourly; the
	// consumer itself is not listed.
	if diff := cmp.Diff([]string{"dash", "weather"}, names); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
	if f.p.Grants()[0] != (Grant{Project: "plant", Consumer: "all", Provider: Wildcard}) {
		t.Errorf("grants %+v", f.p.Grants())
	}
}

// TestGrantNeedsConsumes: a grant for an app the consumer does not consume
// is a provisioning mistake.
func TestGrantNeedsConsumes(t *testing.T) {
	f := newCross(t, backends.Store(t, storetest.Memory))
	var err error
	f.p.reg.Do(func(s *registry.State) { err = s.Grant(f.pr.m, f.dash.m, "all") })
	if err == nil || !strings.Contains(err.Error(), "does not consume") {
		t.Errorf("grant without consumes: %v", err)
	}
	f.p.reg.Do(func(s *registry.State) { err = s.Grant(f.pr.m, f.dash.m, Wildcard) })
	if err == nil {
		t.Error("a wildcard grant for an app that does not consume \"*\"")
	}
}

// TestReaderRole: with a grant, the consumer's per-app credential joins
// the provider's realm as app_reader, reads shared tables and feeds with
// secrets masked, and may do nothing else; without a grant, or with the
// legacy credential, it cannot join.
func TestReaderRole(t *testing.T) { backends.EachStore(t, testReaderRole) }

func testReaderRole(t *testing.T, s worldtest.Store[Option]) {
	f := newCross(t, s)
	if _, err := joinAs(t, f.p, f.dashIn, f.provIn.Realm()); err == nil {
		t.Fatal("joined the provider realm without a grant")
	}
	log := f.p.AuthLog()
	if last := log[len(log)-1]; last.Reason != registry.DenyNoGrant {
		t.Errorf("refusal reason %q, want no_grant", last.Reason)
	}
	serial := f.dashIn.Device().Serial()
	if _, err := worldtest.Dial(t, f.p.URL(), worldtest.DialConfig(f.provIn.Realm(), serial, serial, client.MSGPACK)); err == nil {
		t.Fatal("the legacy credential joined a provider realm")
	}
	f.p.Grant(f.pr, f.dash, "weather")
	r, err := joinAs(t, f.p, f.dashIn, f.provIn.Realm())
	if err != nil {
		t.Fatalf("reader join: %v", err)
	}
	if role := r.RealmDetails()["authrole"]; role != wire.RoleAppReader {
		t.Fatalf("role %v", role)
	}
	if err := f.p.InsertRows(f.provIn, "readings", map[string]any{"tsp": worldtest.T0, "temp": 21.5, "api_key": "k1"}); err != nil {
		t.Fatal(err)
	}
	rows := worldtest.Call(t, r, wire.HistoryProc("readings"), map[string]any{"limit": 10}, nil, false).OK(t, "history").Rows(t)
	if len(rows) != 1 || rows[0]["api_key"] != SecretPlaceholder || rows[0]["temp"] != 21.5 {
		t.Errorf("reader rows %v", rows)
	}
	worldtest.Call(t, r, wire.SeriesProc("readings"), map[string]any{"metrics": []any{map[string]any{"ref": "temp", "method": "MAX"}},
		"limit": 10, "timeRange": []any{worldtest.T0.UnixMilli(), nil}}, nil, false).OK(t, "series")
	for _, tc := range []struct{ what, proc, uri string }{
		{"private table", wire.HistoryProc("private_stats"), wire.ErrNotAuthorized},
		{"error-logs", wire.HistoryProc("error-logs"), wire.ErrNotAuthorized},
		{"append", wire.AppendProc(2, 77, "readings"), wire.ErrNotAuthorized},
		{"reveal", "secret.reveal.readings", wire.ErrNotAuthorized},
		{"verify", "secret.verify.readings", wire.ErrNotAuthorized},
		{"discovery", wire.AppAccessResolve, wire.ErrNotAuthorized},
	} {
		worldtest.Call(t, r, tc.proc, map[string]any{"limit": 1}, nil, false).Refused(t, tc.what, tc.uri)
	}
	worldtest.Call(t, r, wire.HistoryProc("readings"), map[string]any{"limit": 1, "filterAnd": []any{worldtest.Pred("api_key", "=", "k1")}}, nil, false).
		Refused(t, "filter on a secret", wire.ErrSecretColumn)
	if err := r.Publish("2.77.readings", wamp.Dict{wire.OptAcknowledge: true}, wamp.List{map[string]any{"tsp": worldtest.T0.UnixMilli()}}, nil); err == nil {
		t.Error("a reader published on the provider realm")
	}
	if err := r.Register("2.42.77.DEV.fn", func(_ context.Context, _ *wamp.Invocation) client.InvokeResult { return client.InvokeResult{} }, nil); err == nil {
		t.Error("a reader registered a procedure")
	}
	if err := r.Subscribe("transformed.private_stats.x", func(*wamp.Event) {}, wamp.Dict{wire.OptMatch: wire.MatchWildcard}); err == nil {
		t.Error("a reader subscribed with a wildcard pattern")
	}
	if err := r.Subscribe(wire.DataErrorsTopic("readings"), func(*wamp.Event) {}, nil); err == nil {
		t.Error("a reader subscribed to the provider's refused writes")
	}

	// Feeds: the shared table arrives with secrets masked; the private one
	// does not arrive.
	shared := worldtest.Subscribe(t, r, wire.TransformedTopic("readings"))
	private := worldtest.Subscribe(t, r, wire.TransformedTopic("private_stats"))
	station := worldtest.Connect(t, f.p, f.provIn, client.MSGPACK)
	meta := map[string]any{"DEVICE_SERIAL_NUMBER": f.provIn.Device().Serial(), "DEVICE_KEY": "7"}
	worldtest.Call(t, station, wire.AppendProc(2, 77, "private_stats"), map[string]any{"tsp": worldtest.T0.UnixMilli(), "n": 1}, meta, false).OK(t, "private append")
	worldtest.Call(t, station, wire.AppendProc(2, 77, "readings"), map[string]any{"tsp": worldtest.T0.Add(time.Second).UnixMilli(), "temp": 3, "api_key": "k2"}, meta, false).OK(t, "append")
	ev := worldtest.NextEvent(t, shared, "shared feed")
	if row := ev[0].(map[string]any); row["api_key"] != SecretPlaceholder || row["temp"] != int64(3) {
		t.Errorf("feed row %v", row)
	}
	select {
	case ev := <-private:
		t.Errorf("a reader got the private feed: %v", ev)
	default:
	}
}

// TestRevokeEndsReaderSessions: revoking ends the reader's session on the
// provider realm and its next join is refused; another consumer's reader
// with its own grant stays.
func TestRevokeEndsReaderSessions(t *testing.T) { backends.EachStore(t, testRevokeEndsReaderSessions) }

func testRevokeEndsReaderSessions(t *testing.T, s worldtest.Store[Option]) {
	f := newCross(t, s)
	f.p.Grant(f.pr, f.dash, "weather")
	f.p.Grant(f.pr, f.all, Wildcard)
	r, err := joinAs(t, f.p, f.dashIn, f.provIn.Realm())
	if err != nil {
		t.Fatal(err)
	}
	other, err := joinAs(t, f.p, f.allI, f.provIn.Realm())
	if err != nil {
		t.Fatal(err)
	}
	f.p.Revoke(f.pr, f.dash, "weather")
	select {
	case <-r.Done():
	case <-worldtest.Ctx(t).Done():
		t.Fatal("the revoked reader is still connected")
	}
	if _, err := joinAs(t, f.p, f.dashIn, f.provIn.Realm()); err == nil {
		t.Error("rejoined after the revocation")
	}
	worldtest.Call(t, other, wire.HistoryProc("readings"), map[string]any{"limit": 1}, nil, false).OK(t, "the other reader")
	if len(f.p.Grants()) != 1 {
		t.Errorf("grants after revoke: %+v", f.p.Grants())
	}
}
