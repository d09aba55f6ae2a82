package outbox_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

// bulkProc is the bulk append procedure of table for f's client.
func (f *fixture) bulkProc(table string) string {
	id := f.c.Identity()
	return wire.AppendBulkProc(id.SwarmKey, id.AppKey, table)
}

// watch installs an interception that only watches the calls of uri.
func (f *fixture) watch(uri string) *platformtest.Interception {
	return f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, Realm: f.in.Realm(), URI: uri})
}

// wantCalls checks how many calls a watch saw.
func (f *fixture) wantCalls(t *testing.T, w *platformtest.Interception, want int, what string) {
	t.Helper()
	if n := len(w.Seen()); n != want {
		t.Errorf("%d %s, want %d", n, what, want)
	}
}

func TestAppendDeliversInOrder(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	ob := f.open(t, "")
	ids := appendN(t, ob, "readings", 1, 10)
	more, err := ob.AppendRows(ctxT(t), "events", []reading{{Tsp: t0, N: 1}, {Tsp: t0, N: 2}, {Tsp: t0, N: 3}})
	if err != nil {
		t.Fatal(err)
	}
	flush(t, ob)

	f.wantN(t, "readings", seq(1, 10)...)
	f.wantN(t, "events", seq(1, 3)...)
	var gotIDs []string
	for _, v := range f.column("readings", "row_id") {
		gotIDs = append(gotIDs, v.(string))
	}
	if diff := cmp.Diff(ids, gotIDs); diff != "" {
		t.Errorf("row ids (-Append returned +stored):\n%s", diff)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Errorf("ids do not sort in append order: %q then %q", ids[i-1], ids[i])
		}
	}
	if len(more) != 3 {
		t.Errorf("AppendRows returned %d ids, want 3", len(more))
	}
	s := ob.Stats()
	if s.Pending != 0 || s.PendingBytes != 0 || s.Delivered != 13 || s.DeadLettered != 0 || !s.Oldest.IsZero() || s.LastDelivery.IsZero() {
		t.Errorf("Stats after Flush = %+v", s)
	}
}

func TestRowsWaitOutAnOutage(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	ob := f.open(t, "")
	f.p.Down()
	appendN(t, ob, "readings", 1, 5)
	if s := ob.Stats(); s.Pending != 5 || s.PendingBytes == 0 || s.Oldest.IsZero() || s.OldestAge < 0 {
		t.Errorf("Stats while down = %+v", s)
	}
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	appendN(t, ob, "readings", 6, 5)
	flush(t, ob)
	f.wantN(t, "readings", seq(1, 10)...)
}

func TestReopenResumesDelivery(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	dir := t.TempDir()
	f.p.Down()
	ob, err := outbox.Open(f.c, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, ob, "readings", 1, 4)
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0}); !errors.Is(err, outbox.ErrClosed) {
		t.Errorf("Append after Close = %v, want ErrClosed", err)
	}
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	ob = f.open(t, dir)
	appendN(t, ob, "readings", 5, 2)
	flush(t, ob)
	f.wantN(t, "readings", seq(1, 6)...)
}

// A send whose answer is lost after the backend stored the batch: the
// sender finds the ids in the history and does not send them again.
func TestLostAnswerOfStoredBatchIsNotResent(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	sends := f.watch(f.bulkProc("readings"))
	lookups := f.watch(wire.HistoryProc("readings"))
	ob := f.open(t, "")
	var ids []string
	held := f.hold(t, "readings", func() {
		var err error
		if ids, err = ob.AppendRows(ctxT(t), "readings", []reading{{Tsp: t0, N: 1}, {Tsp: t0, N: 2}, {Tsp: t0, N: 3}}); err != nil {
			t.Fatal(err)
		}
	})
	// The backend stores the batch; the answer never comes back.
	if n := len(held.Seen()[0].Args[0].([]any)); n != 3 {
		t.Fatalf("the held batch has %d rows, want 3", n)
	}
	for i, id := range ids {
		if err := f.p.InsertRows(f.in, "readings", map[string]any{"tsp": t0, "row_id": id, "n": i + 1}); err != nil {
			t.Fatal(err)
		}
	}
	f.p.DropConnections()
	flush(t, ob)

	f.wantN(t, "readings", seq(1, 3)...)
	f.wantCalls(t, sends, 1, "bulk appends (the lost one, not sent again)")
	f.wantCalls(t, lookups, 1, "history lookups")
	if s := ob.Stats(); !errors.Is(s.LastError, client.ErrOutcomeUnknown) {
		t.Errorf("Stats.LastError = %v, want ErrOutcomeUnknown", s.LastError)
	}
}

// A send lost before the backend stored it: the history lacks the ids,
// so the batch goes again, once.
func TestLostBatchIsResentAfterLookup(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	sends := f.watch(f.bulkProc("readings"))
	lookups := f.watch(wire.HistoryProc("readings"))
	ob := f.open(t, "")
	f.hold(t, "readings", func() { appendN(t, ob, "readings", 1, 3) })
	f.p.DropConnections() // the held call dies with its connection
	flush(t, ob)
	f.wantN(t, "readings", seq(1, 3)...)
	f.wantCalls(t, sends, 2, "bulk appends")
	f.wantCalls(t, lookups, 1, "history lookups")
}

// Without an id column the same loss gives the row twice: at least once.
func TestWithoutIDColumnDeliveryIsAtLeastOnce(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	lookups := f.watch(wire.HistoryProc("plain"))
	ob, err := outbox.Open(f.c, t.TempDir(), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	f.hold(t, "plain", func() {
		if _, err := ob.Append(ctxT(t), "plain", map[string]any{"tsp": t0, "n": 1}); err != nil {
			t.Fatal(err)
		}
	})
	if err := f.p.InsertRows(f.in, "plain", map[string]any{"tsp": t0, "n": 1}); err != nil {
		t.Fatal(err)
	}
	f.p.DropConnections()
	flush(t, ob)
	f.wantN(t, "plain", 1, 1)
	f.wantCalls(t, lookups, 0, "history lookups without an id column")
}

func TestTemporaryRefusalWaitsAndRetries(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	sends := f.watch(f.bulkProc("readings"))
	f.p.RefuseWrites(f.in.Realm(), platformtest.StorageFull)
	ob := f.open(t, "")
	appendN(t, ob, "readings", 1, 3)
	if err := sends.Wait(ctxT(t), 2); err != nil { // refused twice: it waits and tries again
		t.Fatal(err)
	}
	f.p.RefuseWrites(f.in.Realm(), platformtest.AcceptWrites)
	flush(t, ob)
	f.wantN(t, "readings", seq(1, 3)...)
	s := ob.Stats()
	if s.DeadLettered != 0 || client.WampURI(s.LastError) != wire.ErrStorageFull {
		t.Errorf("Stats = %+v, want nothing dead-lettered and the last error storage_full", s)
	}
}

func TestClientStopEndsSender(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	ob := f.open(t, "")
	f.p.Down()
	appendN(t, ob, "readings", 1, 1)
	if err := f.c.Stop(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := ob.Flush(ctxT(t)); !errors.Is(err, client.ErrStopped) {
		t.Errorf("Flush after the client stopped = %v, want client.ErrStopped", err)
	}
	if _, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0, N: 2}); err != nil {
		t.Errorf("Append after the client stopped = %v, want it stored", err)
	}
	if s := ob.Stats(); s.Pending != 2 || !errors.Is(s.Stopped, client.ErrStopped) {
		t.Errorf("Stats = %+v, want 2 pending and Stopped = ErrStopped", s)
	}
}

// A table without the id column cannot be searched by id: after a lost
// answer its batch is sent again (at least once) instead of waiting for a
// lookup that never works.
func TestTableWithoutIDColumnFallsBackToAtLeastOnce(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	ob := f.open(t, "") // with the id column row_id, which plain lacks
	f.hold(t, "plain", func() {
		if _, err := ob.Append(ctxT(t), "plain", map[string]any{"tsp": t0, "n": 1}); err != nil {
			t.Fatal(err)
		}
	})
	f.p.DropConnections()
	flush(t, ob)
	f.wantN(t, "plain", 1)
	if s := ob.Stats(); !strings.Contains(fmt.Sprint(s.LastError), "42703") {
		t.Errorf("Stats.LastError = %v, want the lookup refused for the unknown column (42703)", s.LastError)
	}
}

// Appends from several goroutines while the sender drains: each
// goroutine's rows are stored in its order, and the counters end at zero
// in memory and on disk.
func TestConcurrentAppends(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	dir := t.TempDir()
	ob := f.open(t, dir)
	const writers, each = 4, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0, N: int64(w*1000 + i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	flush(t, ob)
	last := map[int64]int64{}
	for _, n := range ints(f.column("readings", "n")) {
		w := n / 1000
		if prev, ok := last[w]; ok && n <= prev {
			t.Errorf("writer %d: row %d stored after row %d", w, n, prev)
		}
		last[w] = n
	}
	if got := len(f.rows("readings")); got != writers*each {
		t.Errorf("%d rows stored, want %d", got, writers*each)
	}
	if s := ob.Stats(); s.Pending != 0 || s.PendingBytes != 0 || s.Delivered != writers*each {
		t.Errorf("Stats = %+v, want nothing pending and %d delivered", s, writers*each)
	}
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}
	reopened, err := outbox.Open(offlineClient(t), dir, outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	defer reopened.Close()
	if s := reopened.Stats(); s.Pending != 0 || s.PendingBytes != 0 {
		t.Errorf("Stats after reopening = %+v, want nothing pending", s)
	}
}
