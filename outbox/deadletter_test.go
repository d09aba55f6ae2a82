package outbox_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

// deadLetters lists ob's dead letters, failing the test on an error.
func deadLetters(t *testing.T, ob *outbox.Outbox) []outbox.DeadLetter {
	t.Helper()
	var out []outbox.DeadLetter
	for d, err := range ob.DeadLetters() {
		if err != nil {
			t.Fatalf("DeadLetters: %v", err)
		}
		out = append(out, d)
	}
	return out
}

// A bulk append is atomic: one row without tsp makes the backend refuse
// the whole batch. The sender splits it until that row is alone, delivers
// the others in order and dead-letters that one.
func TestOneRefusedRowInABatch(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	sends := f.watch(f.bulkProc("readings"))
	f.p.Down() // so that the ten rows go in one batch
	ob := f.open(t, "")
	rows := make([]map[string]any, 10)
	for i := range rows {
		rows[i] = map[string]any{"tsp": t0, "n": i + 1}
	}
	delete(rows[6], "tsp") // row 7 is refused: runtime_error [{}]
	ids, err := ob.AppendRows(ctxT(t), "readings", rows)
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, ob, "readings", 11, 2) // behind it
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	err = ob.Flush(ctxT(t))
	if !errors.Is(err, outbox.ErrUndelivered) {
		t.Fatalf("Flush = %v, want ErrUndelivered", err)
	}
	f.wantN(t, "readings", 1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12)
	dl := deadLetters(t, ob)
	if len(dl) != 1 {
		t.Fatalf("%d dead letters, want 1: %+v", len(dl), dl)
	}
	d := dl[0]
	if d.ID != ids[6] || d.Table != "readings" || d.URI != wire.ErrRuntimeError || d.Row["n"] != int64(7) || d.Row["row_id"] != ids[6] || d.Appended.IsZero() || d.Failed.Before(d.Appended) {
		t.Errorf("dead letter = %+v", d)
	}
	if n := len(sends.Seen()); n > 12 {
		t.Errorf("%d bulk appends to find one refused row among 12, want a halving search (≤ 12)", n)
	}
	s := ob.Stats()
	if s.DeadLettered != 1 || s.DeadLetters != 1 || s.Delivered != 11 || s.Pending != 0 {
		t.Errorf("Stats = %+v", s)
	}

	// Dropped for good.
	if n, err := ob.Drop(ctxT(t), d.ID, "no-such-id"); err != nil || n != 1 {
		t.Errorf("Drop = %d, %v; want 1, nil", n, err)
	}
	if dl := deadLetters(t, ob); len(dl) != 0 {
		t.Errorf("dead letters after Drop: %+v", dl)
	}
}

// A table the data template does not declare: its rows are dead-lettered
// with ErrUnknownTable, the other tables' rows go on.
func TestUnknownTableIsDeadLettered(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	ob := f.open(t, "")
	lost := appendN(t, ob, "nosuch", 1, 2)
	appendN(t, ob, "readings", 1, 2)
	if err := ob.Flush(ctxT(t)); !errors.Is(err, outbox.ErrUndelivered) {
		t.Fatalf("Flush = %v, want ErrUndelivered", err)
	}
	f.wantN(t, "readings", seq(1, 2)...)
	var got []string
	for _, d := range deadLetters(t, ob) {
		got = append(got, d.ID)
		if d.Table != "nosuch" || d.URI != wire.ErrNoSuchProcedure {
			t.Errorf("dead letter = %+v", d)
		}
	}
	if diff := cmp.Diff(lost, got); diff != "" {
		t.Errorf("dead letters (-want +got):\n%s", diff)
	}
	if s := ob.Stats(); !errors.Is(s.LastError, client.ErrUnknownTable) {
		t.Errorf("Stats.LastError = %v, want ErrUnknownTable", s.LastError)
	}
}

// A dead letter retried goes to the end of its table's queue with its id.
func TestRetryRequeuesADeadLetter(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	refuse := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: f.bulkProc("readings"), Fail: wire.ErrSecretCiphertext, Args: []any{"refused once"}, Times: 1})
	defer refuse.Cancel()
	ob := f.open(t, "")
	ids := appendN(t, ob, "readings", 1, 1)
	if err := ob.Flush(ctxT(t)); !errors.Is(err, outbox.ErrUndelivered) {
		t.Fatalf("Flush = %v, want ErrUndelivered", err)
	}
	appendN(t, ob, "readings", 2, 1)
	if n, err := ob.Retry(ctxT(t), ids[0]); err != nil || n != 1 {
		t.Fatalf("Retry = %d, %v; want 1, nil", n, err)
	}
	flush(t, ob)
	f.wantN(t, "readings", 2, 1)
	if got := f.column("readings", "row_id")[1]; got != ids[0] {
		t.Errorf("the retried row was stored with id %v, want %s", got, ids[0])
	}
	if dl := deadLetters(t, ob); len(dl) != 0 {
		t.Errorf("dead letters after Retry: %+v", dl)
	}
}

// An entity key conflict on a batch the history already holds is our
// own earlier write: delivered, not dead-lettered. A conflict with a row
// the app wrote before is a refusal of that row.
func TestEntityKeyConflict(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	ob := f.open(t, "")
	if _, err := ob.Append(ctxT(t), "keyed", map[string]any{"tsp": t0, "machine": "press", "n": 1}); err != nil {
		t.Fatal(err)
	}
	flush(t, ob)
	// The same entity and tsp again: the backend refuses it for good.
	if _, err := ob.Append(ctxT(t), "keyed", map[string]any{"tsp": t0, "machine": "press", "n": 2}); err != nil {
		t.Fatal(err)
	}
	if err := ob.Flush(ctxT(t)); !errors.Is(err, outbox.ErrUndelivered) {
		t.Fatalf("Flush = %v, want ErrUndelivered", err)
	}
	dl := deadLetters(t, ob)
	if len(dl) != 1 || dl[0].URI != wire.ErrEntityKeyConflict || dl[0].Row["n"] != int64(2) {
		t.Errorf("dead letters = %+v, want the second row refused with entity_key_conflict", dl)
	}

	// A row the backend already holds (stored by a send whose answer was
	// lost) comes again: the conflict is our own row, delivered.
	at := t0.Add(time.Second)
	var id string
	held := f.hold(t, "keyed", func() {
		var err error
		if id, err = ob.Append(ctxT(t), "keyed", map[string]any{"tsp": at, "machine": "press", "n": 3}); err != nil {
			t.Fatal(err)
		}
	})
	if err := f.p.InsertRows(f.in, "keyed", map[string]any{"tsp": at, "machine": "press", "n": 3, "row_id": id}); err != nil {
		t.Fatal(err)
	}
	held.Cancel() // the held send reaches the backend: entity_key_conflict
	flush(t, ob)
	f.wantN(t, "keyed", 1, 3)
	if s := ob.Stats(); s.DeadLettered != 1 || s.Delivered != 2 {
		t.Errorf("Stats = %+v, want 1 dead-lettered, 2 delivered", s)
	}
}
