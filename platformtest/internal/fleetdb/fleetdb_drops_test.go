package fleetdb_test

import (
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/testhooks"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// dropsFixture is a platform with dbTemplate's app (swarm 2, app 26) on
// device 42, a raw client of it and the platform's log.
type dropsFixture struct {
	p    *platformtest.Platform
	in   *platformtest.Installation
	c    *client.Client
	logs *worldtest.SyncBuffer
}

func newDrops(t *testing.T, tb testing.TB, opts ...platformtest.Option) *dropsFixture {
	t.Helper()
	logs := &worldtest.SyncBuffer{}
	opts = append(opts, platformtest.WithStartTime(worldtest.T0.Add(24*time.Hour)),
		platformtest.WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelWarn}))))
	p := platformtest.New(tb, opts...)
	pr := p.AddProject("plant", platformtest.Key(2))
	d := pr.AddDevice("press", platformtest.Key(42), platformtest.Serial("06a0bf96-a539-4d6a-8471-ac7adc67616e"))
	in := p.Install(d, p.AddApp("interop", dbTemplate, platformtest.Key(26)), platformtest.Dev)
	return &dropsFixture{p: p, in: in, c: worldtest.Connect(t, p, in, client.MSGPACK), logs: logs}
}

func (f *dropsFixture) appendRows(t *testing.T, uri string, arg any) {
	t.Helper()
	worldtest.CallArgs(t, f.c, uri, wamp.List{arg}, nil, false).OK(t, uri)
}

// warnings returns the logged lines containing every one of subs.
func (f *dropsFixture) warnings(subs ...string) int {
	n := 0
	for _, line := range strings.Split(f.logs.String(), "\n") {
		all := line != ""
		for _, s := range subs {
			all = all && strings.Contains(line, s)
		}
		if all {
			n++
		}
	}
	return n
}

// TestUnknownKeysReported: a row's key that no column reads is dropped as
// the platform drops it (the row is stored without it), logged once per
// app, table and key, and counted per realm and table; a published row
// without tsp is logged every time and counted.
func TestUnknownKeysReported(t *testing.T) {
	f := newDrops(t, t)
	f.appendRows(t, "append.2.26.sensordata", map[string]any{"tsp": worldtest.Ms(0), "celsius": 21.5, "DEVICE_KEY": 42})
	f.appendRows(t, "append.2.26.sensordata", map[string]any{"tsp": worldtest.Ms(time.Second), "celsius": 22.5})
	f.appendRows(t, "appendBulk.2.26.sensordata", []any{
		map[string]any{"tsp": worldtest.Ms(2 * time.Second), "celsius": 1, "humidity": 40},
		map[string]any{"tsp": worldtest.Ms(3 * time.Second), "temperature": 3},
	})
	// Nested paths: paths reads args[0].sensor.value, so "sensor" is read.
	f.appendRows(t, "append.2.26.paths", map[string]any{"tsp": worldtest.Ms(0), "sensor": map[string]any{"value": 1}})

	rows := f.p.TableRows(f.in.Realm(), "sensordata")
	if len(rows) != 4 || rows[0]["temperature"] != nil || rows[3]["temperature"] != int64(3) {
		t.Errorf("stored rows %v, want four, the unknown keys dropped", rows)
	}
	if _, ok := rows[0]["celsius"]; ok {
		t.Errorf("the unknown key was stored: %v", rows[0])
	}
	if n := f.warnings("WARN", "no column of the table reads", "key=celsius", "table=sensordata", "call=append.2.26.sensordata"); n != 1 {
		t.Errorf("%d warnings for celsius, want 1:\n%s", n, f.logs)
	}
	if n := f.warnings("WARN", "key=humidity", "call=appendBulk.2.26.sensordata"); n != 1 {
		t.Errorf("%d warnings for humidity, want 1:\n%s", n, f.logs)
	}
	if n := f.warnings("key=DEVICE_KEY"); n != 0 {
		t.Errorf("DEVICE_KEY is read for device_key, yet reported:\n%s", f.logs)
	}
	if n := f.warnings("table=paths"); n != 0 {
		t.Errorf("a key read by a nested column path reported:\n%s", f.logs)
	}

	errFeed := worldtest.Subscribe(t, f.c, "transformed.error-logs")
	for range 2 {
		if err := f.c.Publish("2.26.sensordata", ack, wamp.List{map[string]any{"temperature": 3}}, nil); err != nil {
			t.Fatal(err)
		}
		worldtest.NextEvent(t, errFeed, "system error row")
	}
	if n := f.warnings("WARN", "has no tsp", "table=sensordata", "topic=2.26.sensordata"); n != 2 {
		t.Errorf("%d warnings for rows without tsp, want 2:\n%s", n, f.logs)
	}

	got := testhooks.Dropped(f.p, f.in.Realm(), "sensordata")
	for i := range got {
		got[i].Last = time.Time{}
	}
	want := []fleetdb.DropCount{
		{Key: "", Rows: 2, LastCall: "2.26.sensordata"},
		{Key: "celsius", Rows: 3, LastCall: "appendBulk.2.26.sensordata"},
		{Key: "humidity", Rows: 1, LastCall: "appendBulk.2.26.sensordata"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("counted drops (-want +got):\n%s", diff)
	}
}

// errorsTB records what a platform reports with Errorf instead of failing
// the test.
type errorsTB struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (e *errorsTB) Errorf(format string, args ...any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func (e *errorsTB) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.errs
	e.errs = nil
	return out
}

// TestStrictColumns: with WithStrictColumns an unknown key fails the test
// once per app, table and key, naming the key, the table and the call, and
// a published row without tsp fails it too; the rows are stored as
// without the option.
func TestStrictColumns(t *testing.T) {
	rec := &errorsTB{TB: t}
	f := newDrops(t, rec, platformtest.WithStrictColumns())
	f.appendRows(t, "append.2.26.sensordata", map[string]any{"tsp": worldtest.Ms(0), "temperature": 20})
	if errs := rec.take(); len(errs) != 0 {
		t.Fatalf("a row of known keys failed the test: %v", errs)
	}
	f.appendRows(t, "append.2.26.sensordata", map[string]any{"tsp": worldtest.Ms(time.Second), "celsius": 21.5})
	f.appendRows(t, "append.2.26.sensordata", map[string]any{"tsp": worldtest.Ms(2 * time.Second), "celsius": 22})
	errs := rec.take()
	if len(errs) != 1 {
		t.Fatalf("failures %q, want one for celsius", errs)
	}
	for _, want := range []string{`key "celsius"`, `table "sensordata"`, "append.2.26.sensordata", f.in.Device().Serial()} {
		if !strings.Contains(errs[0], want) {
			t.Errorf("failure %q does not name %s", errs[0], want)
		}
	}
	if n := len(f.p.TableRows(f.in.Realm(), "sensordata")); n != 3 {
		t.Errorf("%d rows stored, want 3", n)
	}

	errFeed := worldtest.Subscribe(t, f.c, "transformed.error-logs")
	if err := f.c.Publish("2.26.sensordata", ack, wamp.List{map[string]any{"temperature": 3}}, nil); err != nil {
		t.Fatal(err)
	}
	worldtest.NextEvent(t, errFeed, "system error row")
	errs = rec.take()
	if len(errs) != 1 || !strings.Contains(errs[0], "without tsp") || !strings.Contains(errs[0], `table "sensordata"`) || !strings.Contains(errs[0], "2.26.sensordata") {
		t.Errorf("failures %q, want one for the row without tsp", errs)
	}
}
