package fleetdb_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestDataErrors: every refused append, bulk append, publication and bulk
// publication to a table is reported on databackend.errors.<t> to the
// app's subscribers (another device's too, and through a prefix
// subscription), with the table, the operation, the refusal's URI and
// message, when, who and how many rows, and never a value of the rows; an
// accepted write is not reported; apps may not publish there.
func TestDataErrors(t *testing.T) { backends.EachStore(t, testDataErrors) }

func testDataErrors(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	creds := worldtest.Subscribe(t, f.c2, wire.DataErrorsTopic("credentials"))
	all := make(chan []any, 64)
	err := f.c2.Subscribe(wire.DataErrorsPrefix, func(e *wamp.Event) { all <- wirevalue.CloneList(e.Arguments) },
		wamp.Dict{wire.OptMatch: wire.MatchPrefix})
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-live-4f9a1c"
	start := f.p.Clock().Now().Truncate(time.Millisecond)
	// report checks the next report of ch against want (its tsp between
	// start and now) and that it holds no secret.
	report := func(ch <-chan []any, what string, want map[string]any) {
		t.Helper()
		ev := worldtest.NextEvent(t, ch, what)
		if len(ev) != 1 {
			t.Fatalf("%s: args %v, want one report", what, ev)
		}
		got, _ := ev[0].(map[string]any)
		at, err := time.Parse("2006-01-02T15:04:05.000Z", str(got["tsp"]))
		if err != nil || at.Before(start) || at.After(f.p.Clock().Now()) {
			t.Errorf("%s: tsp %v, want an ISO time since %v", what, got["tsp"], start)
		}
		delete(got, "tsp")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
		if strings.Contains(fmt.Sprint(ev), secret) {
			t.Errorf("%s: the report shows a secret: %v", what, ev)
		}
	}
	base := func(table, op, uri, msg string, rows int64) map[string]any {
		return map[string]any{"tablename": table, "operation": op, "uri": uri, "message": msg,
			"device_key": int64(42), "authid": f.serial, "rows": rows}
	}

	// An accepted write is not reported: the first report is the refusal
	// that follows it.
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "machine": "m1", "api_key": secret}).OK(t, "first")
	r := f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "machine": "m1", "api_key": secret}).
		Refused(t, "conflict", wire.ErrEntityKeyConflict)
	conflict := base("credentials", "append", wire.ErrEntityKeyConflict, str(r.ErrArgs[0]), 1)
	report(creds, "entity key conflict", conflict)
	report(all, "entity key conflict, prefix", conflict)

	r = f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(time.Second), "machine": "m2", "api_key": "ifsec:1:" + secret}).
		Refused(t, "ciphertext", wire.ErrSecretCiphertext)
	cipher := base("credentials", "append", wire.ErrSecretCiphertext, str(r.ErrArgs[0]), 1)
	report(creds, "ciphertext", cipher)
	report(all, "ciphertext, prefix", cipher)

	// A bulk append refused for one row's type: the Postgres-like error.
	batch := []any{map[string]any{"tsp": worldtest.Ms(0), "seen": worldtest.Ms(0)}, map[string]any{"tsp": worldtest.Ms(time.Second), "seen": "never"}}
	worldtest.Call(t, f.c, wire.AppendBulkProc(2, 26, "sensordata"), batch, f.meta(), false).Refused(t, "bad time", wire.ErrRuntimeError)
	report(all, "bulk append", base("sensordata", "appendBulk", wire.ErrRuntimeError,
		`{"code":"22007","name":"error","severity":"ERROR"}`, 2))

	// Publications: a row without tsp (dropped, and logged in error-logs),
	// a bulk payload that is not a list.
	ack := wamp.Dict{wire.OptAcknowledge: true}
	if err := f.c.Publish(wire.TableTopic(2, 26, "credentials"), ack, wamp.List{map[string]any{"machine": "m3", "api_key": secret}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	noTsp := base("credentials", "publish", wire.ErrRuntimeError, "a row has no tsp value", 1)
	report(creds, "publication without tsp", noTsp)
	report(all, "publication without tsp, prefix", noTsp)
	if err := f.c.Publish(wire.BulkTableTopic(2, 26, "readings"), ack, wamp.List{"not rows"}, f.meta()); err != nil {
		t.Fatal(err)
	}
	report(all, "bulk publication", base("readings", "publishBulk", wire.ErrRuntimeError,
		"refused without detail (a bulk payload must be a non-empty list of rows)", 0))
	// The error-logs row of the dropped publication is no refusal.
	if rows := f.history(t, "error-logs", worldtest.Q("limit", 10)); len(rows) != 1 {
		t.Errorf("error-logs: %v, want the dropped publication's row", rows)
	}

	// Nobody but the data backend publishes there.
	for _, topic := range []string{wire.DataErrorsTopic("credentials"), "databackend.errors"} {
		if err := f.c.Publish(topic, ack, wamp.List{map[string]any{"uri": "forged"}}, nil); err == nil {
			t.Errorf("an app published on %s", topic)
		}
	}
	// Nothing else was reported.
	f.appendRow(t, "readings", map[string]any{"temp": 1}).Refused(t, "append without tsp", wire.ErrRuntimeError)
	report(all, "append without tsp", base("readings", "append", wire.ErrRuntimeError, "a row has no tsp value", 1))
	select {
	case ev := <-creds:
		t.Errorf("a report more on credentials: %v", ev)
	default:
	}
}

// str is v as a string ("" when it is none).
func str(v any) string {
	s, _ := v.(string)
	return s
}

// TestDataErrorsStorageRefused: a full storage (RefuseWrites) is the data
// backend's refusal, so each refused append, bulk append, publication and
// bulk publication is reported on databackend.errors.<t>, error-logs
// included; a refusal an interception makes at the router never reaches
// the data backend and is not reported; once writes are accepted again,
// nothing is.
func TestDataErrorsStorageRefused(t *testing.T) { backends.EachStore(t, testDataErrorsStorageRefused) }

func testDataErrorsStorageRefused(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	all := make(chan []any, 64)
	err := f.c2.Subscribe(wire.DataErrorsPrefix, func(e *wamp.Event) { all <- wirevalue.CloneList(e.Arguments) },
		wamp.Dict{wire.OptMatch: wire.MatchPrefix})
	if err != nil {
		t.Fatal(err)
	}
	next := func(what string, want map[string]any) {
		t.Helper()
		ev := worldtest.NextEvent(t, all, what)
		got, _ := ev[0].(map[string]any)
		delete(got, "tsp")
		want["device_key"], want["authid"] = int64(42), f.serial
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	report := func(table, op, uri, msg string, rows int64) map[string]any {
		return map[string]any{"tablename": table, "operation": op, "uri": uri, "message": msg, "rows": rows}
	}
	const full, overused = "storage is full: writes are refused until space is freed", "the account's storage allowance is used up"
	ack := wamp.Dict{wire.OptAcknowledge: true}

	f.p.RefuseWrites(f.realm, platformtest.StorageFull)
	f.appendRow(t, "sensordata", map[string]any{"tsp": worldtest.Ms(0)}).Refused(t, "append", wire.ErrStorageFull)
	next("append", report("sensordata", "append", wire.ErrStorageFull, full, 1))
	worldtest.Call(t, f.c, wire.AppendBulkProc(2, 26, "readings"), []any{map[string]any{"tsp": worldtest.Ms(0)}, map[string]any{"tsp": worldtest.Ms(1)}}, f.meta(), false).
		Refused(t, "bulk append", wire.ErrStorageFull)
	next("bulk append", report("readings", "appendBulk", wire.ErrStorageFull, full, 2))
	worldtest.Call(t, f.c, wire.AppendProc(2, 26, "error-logs"), map[string]any{"tsp": worldtest.Ms(0), "msg": "x"}, f.meta(), false).
		Refused(t, "error-logs", wire.ErrStorageFull)
	next("error-logs", report("error-logs", "append", wire.ErrStorageFull, full, 1))
	if err := f.c.Publish(wire.TableTopic(2, 26, "sensordata"), ack, wamp.List{map[string]any{"tsp": worldtest.Ms(0)}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	next("publication", report("sensordata", "publish", wire.ErrStorageFull, full, 1))

	f.p.RefuseWrites(f.realm, platformtest.StorageOverusage)
	if err := f.c.Publish(wire.BulkTableTopic(2, 26, "readings"), ack, wamp.List{[]any{map[string]any{"tsp": worldtest.Ms(0)}}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	next("bulk publication", report("readings", "publishBulk", wire.ErrStorageOverusage, overused, 1))

	// A refusal at the router: the data backend never sees the call, and
	// the next report is the refusal after it.
	f.p.RefuseWrites(f.realm, platformtest.AcceptWrites)
	cancel := f.p.Refuse(platformtest.Refusal{Kind: platformtest.KindCall, URI: wire.AppendProc(2, 26, "sensordata"), Error: wire.ErrStorageFull, Times: 1})
	defer cancel()
	f.appendRow(t, "sensordata", map[string]any{"tsp": worldtest.Ms(0)}).Refused(t, "refused at the router", wire.ErrStorageFull)
	f.appendRow(t, "sensordata", map[string]any{"tsp": worldtest.Ms(0), "temperature": 1}).OK(t, "accepted again")
	f.appendRow(t, "readings", map[string]any{"temp": 1}).Refused(t, "append without tsp", wire.ErrRuntimeError)
	next("append without tsp", report("readings", "append", wire.ErrRuntimeError, "a row has no tsp value", 1))
}
