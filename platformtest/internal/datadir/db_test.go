package datadir

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// putN is a write of one checked value in bucket "b".
func putN(n int) func(*bolt.Tx) error {
	return func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		return Put(b, binary.BigEndian.AppendUint64(nil, uint64(n)), fmt.Appendf(nil, "v%d", n))
	}
}

// TestUpdateConcurrent: concurrent writers each get their own outcome; a
// failing write leaves no trace while the others of its transaction are
// kept; everything acknowledged is there after the folder is reopened;
// a panic in a write is its caller's.
func TestUpdateConcurrent(t *testing.T) {
	leakcheck.Check(t)
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	boom := errors.New("refused")
	var wg sync.WaitGroup
	errs := make([]error, 400)
	for i := range errs {
		wg.Go(func() {
			if i%10 == 3 {
				errs[i] = db.Update(ctx, func(tx *bolt.Tx) error {
					if err := putN(i)(tx); err != nil {
						return err
					}
					return boom
				})
				return
			}
			errs[i] = db.Update(ctx, putN(i))
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (i%10 == 3) != errors.Is(err, boom) || (i%10 != 3 && err != nil) {
			t.Errorf("write %d: %v", i, err)
		}
	}
	func() {
		defer func() {
			if r := recover(); r != "kaboom" {
				t.Errorf("recovered %v, want the write's panic", r)
			}
		}()
		_ = db.Update(ctx, func(*bolt.Tx) error { panic("kaboom") })
	}()
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := db.Update(ctx, putN(1000)); !errors.Is(err, ErrClosed) {
		t.Errorf("update after close: %v", err)
	}

	d = mustOpen(t, dir, ReadOnly())
	if f := d.Files(); len(f) != 1 || f[0].Values != 360 {
		t.Errorf("after reopening: %+v, want 360 values", f)
	}
	db, _ = d.DB("things")
	_ = db.View(func(tx *bolt.Tx) error {
		for i := range errs {
			v, err := Get(tx.Bucket([]byte("b")), binary.BigEndian.AppendUint64(nil, uint64(i)))
			if (v != nil) != (i%10 != 3) || err != nil {
				t.Errorf("value %d: %q, %v", i, v, err)
			}
		}
		return nil
	})
}

// TestUpdateFailsWhileGathering: the committer runs each write as it
// joins the round's transaction; when writes queued behind a held one
// join a round and one of them fails and another panics, those two get
// their outcome and every other write is kept.
func TestUpdateFailsWhileGathering(t *testing.T) {
	leakcheck.Check(t)
	dir := filepath.Join(t.TempDir(), "data")
	d := mustOpen(t, dir)
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	held, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	// A write may run more than once: only its first run holds the
	// committer, until release.
	hold := sync.OnceFunc(func() { close(held); <-release })
	go func() {
		first <- db.Update(ctx, func(tx *bolt.Tx) error {
			hold()
			return putN(0)(tx)
		})
	}()
	<-held
	const n = 20
	boom := errors.New("refused")
	errs := make([]error, n)
	panics := make([]any, n)
	var wg sync.WaitGroup
	for i := 1; i <= n; i++ {
		wg.Go(func() {
			defer func() { panics[i-1] = recover() }()
			switch i {
			case 7:
				errs[i-1] = db.Update(ctx, func(tx *bolt.Tx) error { _ = putN(i)(tx); return boom })
			case 12:
				errs[i-1] = db.Update(ctx, func(tx *bolt.Tx) error { _ = putN(i)(tx); panic("kaboom") })
			default:
				errs[i-1] = db.Update(ctx, putN(i))
			}
		})
	}
	for len(db.reqs) < n { // every write queued behind the held one
		runtime.Gosched()
	}
	close(release)
	wg.Wait()
	if err := <-first; err != nil {
		t.Errorf("the first write: %v", err)
	}
	for i := 1; i <= n; i++ {
		err, p := errs[i-1], panics[i-1]
		switch {
		case i == 7 && !errors.Is(err, boom), i == 12 && p != "kaboom", i != 7 && i != 12 && (err != nil || p != nil):
			t.Errorf("write %d: %v, panic %v", i, err, p)
		}
	}
	_ = db.View(func(tx *bolt.Tx) error {
		for i := 0; i <= n; i++ {
			v, err := Get(tx.Bucket([]byte("b")), binary.BigEndian.AppendUint64(nil, uint64(i)))
			if (v != nil) != (i != 7 && i != 12) || err != nil {
				t.Errorf("value %d: %q, %v", i, v, err)
			}
		}
		return nil
	})
}

// TestUpdateCanceled: a write whose ctx ended before the committer took
// it is not made.
func TestUpdateCanceled(t *testing.T) {
	d := mustOpen(t, filepath.Join(t.TempDir(), "data"))
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	// The committer is idle: it may take the write or see ctx first; either
	// way the outcome is true.
	err = db.Update(ctx, putN(1))
	var present bool
	_ = db.View(func(tx *bolt.Tx) error {
		present = tx.Bucket([]byte("b")) != nil
		return nil
	})
	if (err == nil) != present || (err != nil && !errors.Is(err, context.Canceled)) {
		t.Errorf("update: %v, value present: %v", err, present)
	}
}

// BenchmarkUpdate16 compares 16 concurrent writers of one small value
// each: DB.Update (group commit), bbolt's Update (one commit and fsync per
// write) and bbolt's Batch (commits on a 10 ms timer or 1000 writes).
func BenchmarkUpdate16(b *testing.B) {
	for _, mode := range []string{"group", "bolt-update", "bolt-batch"} {
		b.Run(mode, func(b *testing.B) {
			d, err := Open(filepath.Join(b.TempDir(), "data"))
			if err != nil {
				b.Fatal(err)
			}
			defer d.Close()
			db, err := d.DB("bench")
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			var mu sync.Mutex
			next := 0
			b.SetParallelism(8) // 16 writers on 2 cores
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					mu.Lock()
					next++
					n := next
					mu.Unlock()
					var err error
					switch mode {
					case "group":
						err = db.Update(ctx, putN(n))
					case "bolt-update":
						err = db.Bolt().Update(putN(n))
					case "bolt-batch":
						err = db.Bolt().Batch(putN(n))
					}
					if err != nil {
						b.Error(err)
					}
				}
			})
		})
	}
}
