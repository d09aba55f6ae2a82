package fleetdb_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

var ack = wamp.Dict{"acknowledge": true}

// TestWriteTyping: each column type's storage typing (docs/fake.md), read
// back typed (§7.6), and the Postgres errors of values that cannot be
// stored.
func TestWriteTyping(t *testing.T) { backends.EachStore(t, testWriteTyping) }

func testWriteTyping(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	cases := []struct {
		column string
		in     any
		want   any // as read back
	}{
		{"temperature", 21.5, 21.5},
		{"temperature", int64(3), int64(3)},
		{"temperature", "12.5abc", 12.5},
		{"temperature", " 7e1", int64(70)},
		{"temperature", "abc", nil},
		{"temperature", true, nil},
		{"temperature", math.NaN(), nil},
		{"temperature", math.Inf(1), nil},
		{"n", int64(-3), int64(-3)},
		{"n", "42", int64(42)},
		{"n", 3.0, int64(3)},
		{"n", 3.5, nil},
		{"n", "4x", nil},
		{"ok", true, true},
		{"ok", "true", true},
		{"ok", int64(1), true},
		{"ok", false, false},
		{"ok", "false", false},
		{"ok", int64(0), false},
		{"ok", "yes", nil},
		{"ok", int64(2), nil},
		{"source", int64(5), "5"},
		{"source", 1.5, "1.5"},
		{"source", 1e21, "1e+21"},
		{"source", true, "true"},
		{"seen", 1767225600123.7, worldtest.ISO(123 * time.Millisecond)},
		{"seen", "2026-01-01T01:00:00+01:00", worldtest.ISO(0)},
		{"seen", "2026-01-01", worldtest.ISO(0)},
		{"seen", "2026-01-01 00:00:01.5", worldtest.ISO(1500 * time.Millisecond)},
		{"payload", map[string]any{"a": []any{1.5, map[string]any{"b": int64(2)}}, "c": nil},
			map[string]any{"a": []any{1.5, map[string]any{"b": int64(2)}}, "c": nil}},
		{"payload", "text", "text"},
		{"payload", int64(7), int64(7)},
	}
	for i, tc := range cases {
		tsp := worldtest.T0.Add(time.Duration(i) * time.Second).Format(time.RFC3339)
		f.appendRow(t, "sensordata", map[string]any{"tsp": tsp, tc.column: tc.in}).OK(t, tc.column)
	}
	rows := f.history(t, "sensordata", worldtest.Q("limit", 100, "offset", 0))
	if len(rows) != len(cases) {
		t.Fatalf("%d rows, want %d", len(rows), len(cases))
	}
	for i, tc := range cases {
		if diff := cmp.Diff(tc.want, rows[i][tc.column]); diff != "" {
			t.Errorf("%s = %#v read back (-want +got):\n%s", tc.column, tc.in, diff)
		}
	}

	pg := func(code string) []any {
		return []any{map[string]any{"name": "error", "severity": "ERROR", "code": code}}
	}
	refusals := []struct {
		row  map[string]any
		want []any
	}{
		{map[string]any{"tsp": 1, "source": map[string]any{"x": 1}}, pg("42804")},
		{map[string]any{"tsp": 1, "temperature": []any{1, 2}}, pg("42804")},
		{map[string]any{"tsp": 1, "seen": "garbage"}, pg("22007")},
		{map[string]any{"tsp": "2026-02-30"}, pg("22007")},
		{map[string]any{"tsp": "2026-01-01T24:00:01Z"}, pg("22007")},
		{map[string]any{"tsp": 1, "seen": math.Inf(-1)}, pg("22008")},
		{map[string]any{"tsp": true}, pg("22007")},
		{map[string]any{"temperature": 1}, []any{map[string]any{}}},
		{map[string]any{"tsp": nil, "temperature": 1}, []any{map[string]any{}}},
	}
	for _, tc := range refusals {
		got := f.appendRow(t, "sensordata", tc.row).Refused(t, "refused row", wire.ErrRuntimeError)
		if diff := cmp.Diff(tc.want, got.ErrArgs); diff != "" {
			t.Errorf("%v (-want +got):\n%s", tc.row, diff)
		}
	}
	if n := len(f.p.TableRows(f.realm, "sensordata")); n != len(cases) {
		t.Errorf("%d rows stored after the refusals, want %d", n, len(cases))
	}
}

// TestWriteIdentityAndPaths: device_key is Number(kwargs.DEVICE_KEY ??
// args[0].DEVICE_KEY) with NaN stored as -1, authid the publisher's serial,
// and columns with a path read it over {args, kwargs, details}.
func TestWriteIdentityAndPaths(t *testing.T) { backends.EachStore(t, testWriteIdentityAndPaths) }

func testWriteIdentityAndPaths(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	cases := []struct {
		kwargs map[string]any
		row    map[string]any
		want   int64
	}{
		{map[string]any{"DEVICE_KEY": "42"}, nil, 42},
		{map[string]any{"DEVICE_KEY": int64(12)}, map[string]any{"DEVICE_KEY": 7}, 12},
		{nil, map[string]any{"DEVICE_KEY": "7"}, 7},
		{map[string]any{"DEVICE_KEY": nil}, map[string]any{"DEVICE_KEY": 8}, 8},
		{map[string]any{"DEVICE_KEY": nil}, nil, -1},
		{map[string]any{"DEVICE_KEY": "abc"}, nil, -1},
		{map[string]any{"DEVICE_KEY": ""}, nil, 0},
		{map[string]any{"DEVICE_KEY": nil}, map[string]any{"DEVICE_KEY": nil}, 0},
		{map[string]any{"DEVICE_KEY": " 0x10 "}, nil, 16},
	}
	for i, tc := range cases {
		row := map[string]any{"tsp": worldtest.Ms(time.Duration(i) * time.Second)}
		for k, v := range tc.row {
			row[k] = v
		}
		worldtest.Call(t, f.c, "append.2.26.readings", row, tc.kwargs, false).OK(t, "append")
	}
	rows := f.p.TableRows(f.realm, "readings")
	for i, tc := range cases {
		if rows[i]["device_key"] != tc.want || rows[i]["authid"] != f.serial {
			t.Errorf("case %d: device_key %v authid %v, want %d and the serial", i, rows[i]["device_key"], rows[i]["authid"], tc.want)
		}
	}

	feed := worldtest.Subscribe(t, f.c2, "transformed.paths")
	if err := f.c.Publish("2.26.paths", ack, wamp.List{map[string]any{"tsp": worldtest.Ms(0), "sensor": map[string]any{"value": 3.5}}, 9}, f.meta()); err != nil {
		t.Fatal(err)
	}
	want := []any{map[string]any{"tsp": worldtest.ISO(0), "name": "press", "second": int64(9), "deep": 3.5, "device_key": int64(42), "authid": f.serial}}
	if diff := cmp.Diff(want, worldtest.NextEvent(t, feed, "paths")); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	// A kwargs-only write stores nothing for default paths: no tsp.
	r := worldtest.Call(t, f.c, "append.2.26.readings", nil, map[string]any{"tsp": worldtest.Ms(0), "temp": 1}, false)
	r.Refused(t, "kwargs-only append", wire.ErrRuntimeError)
}

// TestMissingTsp: an append without tsp fails with runtime_error [{}]; a
// publication without tsp is dropped and leaves an error-logs row with
// source system, readable and delivered on transformed.error-logs; a bulk
// publication with one such row drops the whole batch.
func TestMissingTsp(t *testing.T) { backends.EachStore(t, testMissingTsp) }

func testMissingTsp(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	errFeed := worldtest.Subscribe(t, f.c2, "transformed.error-logs")
	feed := worldtest.Subscribe(t, f.c2, "transformed.bulk.sensordata")
	if err := f.c.Publish("2.26.sensordata", ack, wamp.List{map[string]any{"temperature": 3}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	ev := worldtest.NextEvent(t, errFeed, "system error row")
	row := ev[0].(map[string]any)
	if row["source"] != "system" || row["level"] != "error" || row["device_key"] != int64(42) || row["authid"] != f.serial || row["tsp"] == nil {
		t.Errorf("system row on the feed: %v", row)
	}
	logs := f.history(t, "error-logs", worldtest.Q("limit", 10, "offset", 0, "filterAnd", worldtest.List(worldtest.Pred("source", "=", "system"))))
	if len(logs) != 1 || logs[0]["msg"] != row["msg"] || logs[0]["id"] != int64(1) {
		t.Fatalf("error-logs %v", logs)
	}
	if err := f.c.Publish("bulk.2.26.sensordata", ack, wamp.List{[]any{
		map[string]any{"tsp": worldtest.Ms(0), "temperature": 1}, map[string]any{"temperature": 2},
	}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	worldtest.NextEvent(t, errFeed, "second system error row")
	if err := f.c.Publish("bulk.2.26.sensordata", ack, wamp.List{[]any{map[string]any{"tsp": worldtest.Ms(time.Second), "temperature": 5}}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	worldtest.NextEvent(t, feed, "the good batch")
	if diff := cmp.Diff([]any{int64(5)}, worldtest.Col(f.p.TableRows(f.realm, "sensordata"), "temperature")); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
}

// TestBulkAtomic: a batch with one invalid row stores nothing; a batch
// that is not a non-empty list fails with runtime_error [{}].
func TestBulkAtomic(t *testing.T) { backends.EachStore(t, testBulkAtomic) }

func testBulkAtomic(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	bulk := func(arg any) worldtest.CallResult {
		return worldtest.Call(t, f.c, "appendBulk.2.26.sensordata", arg, f.meta(), false)
	}
	r := bulk([]any{map[string]any{"tsp": worldtest.Ms(0), "temperature": 1}, map[string]any{"tsp": worldtest.Ms(1), "source": map[string]any{}}})
	r.Refused(t, "invalid row", wire.ErrRuntimeError)
	for _, arg := range []any{[]any{}, map[string]any{"tsp": worldtest.Ms(0)}, "rows", nil} {
		r := bulk(arg).Refused(t, "not a batch", wire.ErrRuntimeError)
		if diff := cmp.Diff([]any{map[string]any{}}, r.ErrArgs); diff != "" {
			t.Errorf("batch %v (-want +got):\n%s", arg, diff)
		}
	}
	if rows := f.p.TableRows(f.realm, "sensordata"); len(rows) != 0 {
		t.Errorf("stored %v", rows)
	}
}

// TestEntityMergeAndConflict: on an entity table a row takes the columns
// it lacks from the entity's latest row (also inside a batch), the feed
// then carries the full row, and the same entity key and tsp twice is
// entity_key_conflict, inside a batch too.
func TestEntityMergeAndConflict(t *testing.T) { backends.EachStore(t, testEntityMergeAndConflict) }

func testEntityMergeAndConflict(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	feed := worldtest.Subscribe(t, f.c2, "transformed.credentials")
	write := func(row map[string]any) worldtest.CallResult { return f.appendRow(t, "credentials", row) }
	write(map[string]any{"tsp": worldtest.Ms(0), "machine": "m1", "state": "idle", "api_key": "k1"}).OK(t, "first")
	first := worldtest.NextEvent(t, feed, "first")
	wantFirst := []any{map[string]any{"tsp": worldtest.ISO(0), "machine": "m1", "state": "idle", "api_key": platformtest.SecretPlaceholder,
		"device_key": int64(42), "authid": f.serial}}
	if diff := cmp.Diff(wantFirst, first); diff != "" {
		t.Errorf("plain insert event (-want +got):\n%s", diff)
	}
	write(map[string]any{"tsp": worldtest.Ms(time.Minute), "machine": "m1", "state": "running"}).OK(t, "merge")
	merged := worldtest.NextEvent(t, feed, "merge")
	wantMerged := []any{map[string]any{"tsp": worldtest.ISO(time.Minute), "machine": "m1", "state": "running", "api_key": platformtest.SecretPlaceholder,
		"device_key": int64(42), "authid": f.serial}}
	if diff := cmp.Diff(wantMerged, merged); diff != "" {
		t.Errorf("merge event, the full row (-want +got):\n%s", diff)
	}
	write(map[string]any{"tsp": worldtest.Ms(2 * time.Minute), "machine": "m1", "state": "x", "api_key": platformtest.SecretPlaceholder}).OK(t, "placeholder")
	write(map[string]any{"tsp": worldtest.Ms(3 * time.Minute), "machine": "m1", "api_key": "••••••••"}).OK(t, "UI mask")
	write(map[string]any{"tsp": worldtest.Ms(30 * time.Second), "machine": "m1", "state": "older"}).OK(t, "older row merges from the latest")
	write(map[string]any{"tsp": worldtest.Ms(4 * time.Minute), "machine": "m1", "api_key": nil}).OK(t, "null clears")

	r := write(map[string]any{"tsp": worldtest.Ms(time.Minute), "machine": "m1", "state": "again"}).Refused(t, "conflict", wire.ErrEntityKeyConflict)
	if len(r.ErrArgs) != 1 {
		t.Errorf("conflict args %v", r.ErrArgs)
	}
	batch := []any{map[string]any{"tsp": worldtest.Ms(0), "machine": "m2", "state": "a"}, map[string]any{"tsp": worldtest.Ms(0), "machine": "m2", "state": "b"}}
	worldtest.Call(t, f.c, "appendBulk.2.26.credentials", batch, f.meta(), false).Refused(t, "conflict in a batch", wire.ErrEntityKeyConflict)
	batch = []any{
		map[string]any{"tsp": worldtest.Ms(0), "machine": "m3", "state": "a", "api_key": "k3"},
		map[string]any{"tsp": worldtest.Ms(time.Second), "machine": "m3", "state": "b"},
	}
	worldtest.Call(t, f.c, "appendBulk.2.26.credentials", batch, f.meta(), false).OK(t, "merge in a batch")
	// Rows without the entity key are neither merged nor in conflict.
	write(map[string]any{"tsp": worldtest.Ms(0), "state": "no machine"}).OK(t, "no key")
	write(map[string]any{"tsp": worldtest.Ms(0), "state": "no machine"}).OK(t, "no key again")

	var got [][]any
	for _, r := range f.p.DecryptedTableRows(f.realm, "credentials") {
		got = append(got, []any{r["tsp"], r["machine"], r["state"], r["api_key"]})
	}
	want := [][]any{
		{worldtest.ISO(0), "m1", "idle", "k1"},
		{worldtest.ISO(0), "m3", "a", "k3"},
		{worldtest.ISO(0), nil, "no machine", nil},
		{worldtest.ISO(0), nil, "no machine", nil},
		{worldtest.ISO(time.Second), "m3", "b", "k3"},
		{worldtest.ISO(30 * time.Second), "m1", "older", "k1"},
		{worldtest.ISO(time.Minute), "m1", "running", "k1"},
		{worldtest.ISO(2 * time.Minute), "m1", "x", "k1"},
		{worldtest.ISO(3 * time.Minute), "m1", "x", "k1"},
		{worldtest.ISO(4 * time.Minute), "m1", "x", nil},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stored rows (-want +got):\n%s", diff)
	}
}

// TestSecretWrites: already-encrypted values and placeholders that cannot
// be resolved are refused; reads and feeds mask values, null stays null;
// filtering on a secret column is refused, inside groups too.
func TestSecretWrites(t *testing.T) { backends.EachStore(t, testSecretWrites) }

func testSecretWrites(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "machine": "m1", "api_key": "ifsec:1:abcd"}).
		Refused(t, "ciphertext", wire.ErrSecretCiphertext)
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "api_key": platformtest.SecretPlaceholder}).
		Refused(t, "placeholder without entity key value", wire.ErrSecretSentinel)
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(0), "token": platformtest.SecretPlaceholder}).
		Refused(t, "placeholder on a table without entity key", wire.ErrSecretSentinel)
	f.appendRow(t, "credentials", map[string]any{"tsp": worldtest.Ms(0), "machine": "new", "api_key": platformtest.SecretPlaceholder}).OK(t, "placeholder, no previous row")
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(1), "token": "plain"}).OK(t, "token")
	f.appendRow(t, "tokens", map[string]any{"tsp": worldtest.Ms(2), "token": nil}).OK(t, "null token")
	rows := f.history(t, "tokens", worldtest.Q("limit", 10, "offset", 0))
	if diff := cmp.Diff([]any{platformtest.SecretPlaceholder, nil}, worldtest.Col(rows, "token")); diff != "" {
		t.Errorf("masked reads (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]any{"plain", nil}, worldtest.Col(f.p.DecryptedTableRows(f.realm, "tokens"), "token")); diff != "" {
		t.Errorf("stored plaintext (-want +got):\n%s", diff)
	}
	if got := f.p.TableRows(f.realm, "credentials")[0]["api_key"]; got != nil {
		t.Errorf("placeholder without previous row stored %v", got)
	}
	for _, filter := range []any{
		worldtest.Pred("token", "=", "plain"),
		worldtest.Pred("token", "IS NULL"),
		map[string]any{"combinator": "OR", "filters": worldtest.List(worldtest.Pred("tsp", ">", 0), worldtest.Pred("token", "LIKE", "p%"))},
	} {
		worldtest.Call(t, f.c, "history.transformed.tokens", worldtest.Q("limit", 10, "filterAnd", worldtest.List(filter)), nil, false).
			Refused(t, "filter on a secret column", wire.ErrSecretColumn)
	}
}

// TestStorageRefusal: refused writes answer storage_full or
// storage_overusage, publications are dropped, InsertRows still works.
func TestStorageRefusal(t *testing.T) { backends.EachStore(t, testStorageRefusal) }

func testStorageRefusal(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	feed := worldtest.Subscribe(t, f.c2, "transformed.sensordata")
	refusals := worldtest.Subscribe(t, f.c2, wire.DataErrorsTopic("sensordata"))
	for _, tc := range []struct {
		r   platformtest.WriteRefusal
		uri string
	}{{platformtest.StorageFull, wire.ErrStorageFull}, {platformtest.StorageOverusage, wire.ErrStorageOverusage}} {
		f.p.RefuseWrites(f.realm, tc.r)
		f.appendRow(t, "sensordata", map[string]any{"tsp": worldtest.Ms(0)}).Refused(t, tc.r.String(), tc.uri)
		worldtest.Call(t, f.c, "appendBulk.2.26.sensordata", []any{map[string]any{"tsp": worldtest.Ms(0)}}, f.meta(), false).Refused(t, tc.r.String(), tc.uri)
		worldtest.Call(t, f.c, "append.2.26.error-logs", map[string]any{"tsp": worldtest.Ms(0), "msg": "x"}, f.meta(), false).Refused(t, tc.r.String(), tc.uri)
		if err := f.c.Publish("2.26.sensordata", ack, wamp.List{map[string]any{"tsp": worldtest.Ms(0), "temperature": 1}}, f.meta()); err != nil {
			t.Fatal(err)
		}
		// The router acknowledges a publication before the data backend
		// handles it: go on once the backend reported it refused.
		for {
			ev := worldtest.NextEvent(t, refusals, "the refused publication's report")
			if ev[0].(map[string]any)[wire.DataErrorOperation] == "publish" {
				break
			}
		}
	}
	f.insert(t, "sensordata", map[string]any{"tsp": worldtest.Ms(time.Second), "temperature": 2})
	f.p.RefuseWrites(f.realm, platformtest.AcceptWrites)
	if err := f.c.Publish("2.26.sensordata", ack, wamp.List{map[string]any{"tsp": worldtest.Ms(time.Minute), "temperature": 3}}, f.meta()); err != nil {
		t.Fatal(err)
	}
	if ev := worldtest.NextEvent(t, feed, "accepted again"); ev[0].(map[string]any)["temperature"] != int64(3) {
		t.Errorf("first feed event %v: a refused publication was stored", ev)
	}
	if diff := cmp.Diff([]any{int64(2), int64(3)}, worldtest.Col(f.p.TableRows(f.realm, "sensordata"), "temperature")); diff != "" {
		t.Errorf("stored (-want +got):\n%s", diff)
	}
	if platformtest.WriteRefusal(7).String() != "WriteRefusal(7)" || platformtest.AcceptWrites.String() != "AcceptWrites" {
		t.Error("WriteRefusal.String")
	}
}

// TestDataSurvivesRestart: rows live in the platform; after Restart the
// backend serves them again.
func TestDataSurvivesRestart(t *testing.T) { backends.EachStore(t, testDataSurvivesRestart) }

func testDataSurvivesRestart(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newDB(t, s)
	f.appendRow(t, "sensordata", map[string]any{"tsp": worldtest.Ms(0), "temperature": 1}).OK(t, "append")
	if err := f.p.Restart(); err != nil {
		t.Fatal(err)
	}
	c := worldtest.Connect(t, f.p, f.in2, client.MSGPACK)
	rows := worldtest.Call(t, c, "history.transformed.sensordata", worldtest.Q("limit", 10), nil, false).OK(t, "after restart").Rows(t)
	if diff := cmp.Diff([]any{int64(1)}, worldtest.Col(rows, "temperature")); diff != "" {
		t.Errorf("after restart (-want +got):\n%s", diff)
	}
}
