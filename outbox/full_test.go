package outbox_test

import (
	"context"
	"errors"
	"testing"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/outbox"
)

// stoppedFixture is a fixture whose client is stopped: an outbox on it
// keeps every row, so the size limit is reached deterministically.
func stoppedFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	if err := f.c.Stop(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	return f
}

func TestFullFails(t *testing.T) {
	leakcheck.Check(t)
	f := stoppedFixture(t)
	ob := f.open(t, "", outbox.WithMaxRows(3), outbox.WithFullPolicy(outbox.Fail))
	appendN(t, ob, "readings", 1, 3)
	_, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0, N: 4})
	if !errors.Is(err, outbox.ErrFull) {
		t.Fatalf("Append to a full outbox = %v, want ErrFull", err)
	}
	var oe *outbox.Error
	if !errors.As(err, &oe) || oe.Op != "Append" || oe.Table != "readings" {
		t.Errorf("error %v does not name Append and the table", err)
	}
	if s := ob.Stats(); s.Pending != 3 || s.Dropped != 0 {
		t.Errorf("Stats = %+v, want 3 pending", s)
	}
	// A batch larger than the limit can never fit, whatever the policy.
	if _, err := ob.AppendRows(ctxT(t), "readings", make([]reading, 4)); !errors.Is(err, outbox.ErrFull) {
		t.Errorf("AppendRows of 4 rows with a limit of 3 = %v, want ErrFull", err)
	}
}

func TestFullBytesFails(t *testing.T) {
	leakcheck.Check(t)
	f := stoppedFixture(t)
	ob := f.open(t, "", outbox.WithMaxBytes(300), outbox.WithFullPolicy(outbox.Fail))
	n := 0
	for {
		_, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0, N: int64(n)})
		if errors.Is(err, outbox.ErrFull) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		n++
	}
	if s := ob.Stats(); n == 0 || s.Pending != int64(n) || s.PendingBytes > 300 {
		t.Errorf("after %d rows: Stats = %+v, want at most 300 bytes pending", n, s)
	}
}

func TestFullDropsOldest(t *testing.T) {
	leakcheck.Check(t)
	f := stoppedFixture(t)
	dir := t.TempDir()
	ob := f.open(t, dir, outbox.WithMaxRows(3), outbox.WithFullPolicy(outbox.DropOldest))
	appendN(t, ob, "readings", 1, 2)
	appendN(t, ob, "events", 3, 1)
	appendN(t, ob, "events", 4, 2) // drops readings 1 and 2
	s := ob.Stats()
	if s.Pending != 3 || s.Dropped != 2 {
		t.Errorf("Stats = %+v, want 3 pending, 2 dropped", s)
	}
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}

	live := newFixture(t)
	ob = live.open(t, dir)
	flush(t, ob)
	if got := live.rows("readings"); len(got) != 0 {
		t.Errorf("readings holds %v, want the dropped rows gone", got)
	}
	live.wantN(t, "events", 3, 4, 5)
}

func TestFullBlocksUntilDelivered(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	f.p.Down()
	ob := f.open(t, "", outbox.WithMaxRows(3))
	appendN(t, ob, "readings", 1, 3)

	canceled, cancel := context.WithCancel(ctxT(t))
	cancel()
	if _, err := ob.Append(canceled, "readings", reading{Tsp: t0, N: 4}); !errors.Is(err, context.Canceled) {
		t.Errorf("Append with an ended context to a full outbox = %v, want context.Canceled", err)
	}

	done := make(chan error, 1)
	go func() {
		_, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0, N: 4})
		done <- err
	}()
	select {
	case err := <-done:
		t.Fatalf("Append returned %v while the outbox was full", err)
	default:
	}
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("blocked Append = %v", err)
	}
	flush(t, ob)
	f.wantN(t, "readings", seq(1, 4)...)
}

func TestCloseReleasesBlockedAppend(t *testing.T) {
	leakcheck.Check(t)
	f := stoppedFixture(t)
	ob, err := outbox.Open(f.c, t.TempDir(), outbox.WithMaxRows(1), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	appendN(t, ob, "readings", 1, 1)
	done := make(chan error, 1)
	go func() {
		_, err := ob.Append(ctxT(t), "readings", reading{Tsp: t0, N: 2})
		done <- err
	}()
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; !errors.Is(err, outbox.ErrClosed) {
		t.Errorf("Append blocked at Close = %v, want ErrClosed", err)
	}
	if err := ob.Flush(ctxT(t)); !errors.Is(err, outbox.ErrClosed) {
		t.Errorf("Flush after Close = %v, want ErrClosed", err)
	}
}

// A row dropped before Flush was called is still one of the rows it
// reports: once, to the first Flush.
func TestFlushReportsRowsDroppedBeforeIt(t *testing.T) {
	leakcheck.Check(t)
	f := newFixture(t)
	f.p.Down()
	ob := f.open(t, "", outbox.WithMaxRows(1), outbox.WithFullPolicy(outbox.DropOldest))
	appendN(t, ob, "readings", 1, 2) // the second drops the first
	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	if err := ob.Flush(ctxT(t)); !errors.Is(err, outbox.ErrUndelivered) {
		t.Errorf("Flush = %v, want ErrUndelivered for the row dropped before it", err)
	}
	if err := ob.Flush(ctxT(t)); err != nil {
		t.Errorf("the next Flush = %v, want nil: the drop was reported", err)
	}
	// Row 1 may be stored all the same: the sender may have had it in
	// flight, waiting for the link, when it was dropped.
	if n := ints(f.column("readings", "n")); len(n) == 0 || n[len(n)-1] != 2 {
		t.Errorf("readings n = %v, want row 2 last", n)
	}
}
