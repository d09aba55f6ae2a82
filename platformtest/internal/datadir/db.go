// This file holds DB, a bbolt file of the folder, with group commit: the
// writes of concurrent callers are gathered into one transaction and one
// fsync, as etcd's backend batches its transactions. One goroutine per
// file commits: it takes the first waiting write, opens a transaction and
// runs in it every write waiting behind (up to maxBatch), each as it
// arrives, then commits; writes that arrive during the commit wait for the
// next round. When several writers were in flight at the last commit, it
// first lets the goroutines that can run do so while that brings writes
// (on a busy machine the writers on their way are waiting for a core, not
// for the disk), then waits a moment (at most twice as long as the last
// commit took) for as many writers as last time, so that writers that keep
// writing share each sync rather than splitting into groups that take
// turns; the work of the writes that arrive meanwhile is done during that
// wait, not after it. A lone writer waits for its own commit only, never
// for a timer or another goroutine.

package datadir

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// maxBatch is the most writes one transaction takes.
const maxBatch = 1024

// DB is a bbolt file of the folder (Dir.DB). It is safe for concurrent
// use.
type DB struct {
	dir      *Dir
	name     string
	bolt     *bolt.DB
	readOnly bool

	reqs chan *write   // the writes waiting for the committer
	stop chan struct{} // closed by Close
	done chan struct{} // closed when the committer has ended
	once sync.Once
}

// write is one caller's write waiting for its commit.
type write struct {
	fn   func(*bolt.Tx) error
	done chan outcome // buffered, one outcome
}

type outcome struct {
	err   error
	panic any // fn panicked: the caller panics with it
}

func newDB(d *Dir, name string, b *bolt.DB) *DB {
	readOnly := d.readOnly
	db := &DB{dir: d, name: name, bolt: b, readOnly: readOnly, reqs: make(chan *write, maxBatch),
		stop: make(chan struct{}), done: make(chan struct{})}
	if readOnly {
		close(db.done)
	} else {
		go db.commitLoop()
	}
	return db
}

// Name returns the file's name in the folder, such as "registry.db".
func (db *DB) Name() string { return db.name }

// Bolt returns the bbolt database, for what View and Update do not offer
// (statistics). Writes made through it directly do not share commits.
func (db *DB) Bolt() *bolt.DB { return db.bolt }

// View runs fn in a read-only transaction.
func (db *DB) View(fn func(*bolt.Tx) error) error { return db.bolt.View(fn) }

// Update runs fn in a read-write transaction shared with the writes of
// other callers waiting at the same time, and returns once that
// transaction is committed and synced to disk, or has failed. When fn
// returns an error the transaction is rolled back, that error is returned
// and the other writes are run again without fn; so fn must change
// nothing but the transaction, and may be run more than once. A panic in
// fn is a panic of the caller. ctx bounds the wait for a place in the
// committer's queue (maxBatch writes); once queued, Update waits for its
// commit (a fraction of a second), so that what it returns is true. A commit that does not fit
// on the disk fails every write of its transaction with an error wrapping
// ErrFull.
func (db *DB) Update(ctx context.Context, fn func(*bolt.Tx) error) error {
	if db.readOnly {
		return fmt.Errorf("%w: %s", ErrReadOnly, db.name)
	}
	w := &write{fn: fn, done: make(chan outcome, 1)}
	select {
	case <-db.stop:
		return db.closed()
	default:
	}
	select {
	case db.reqs <- w:
	case <-ctx.Done():
		return ctx.Err()
	case <-db.stop:
		return db.closed()
	}
	var o outcome
	select {
	case o = <-w.done:
	case <-db.done: // the committer ended: it answered every write it took
		select {
		case o = <-w.done:
		default:
			return db.closed()
		}
	}
	if o.panic != nil {
		panic(o.panic)
	}
	return o.err
}

// closed is the error of a write to a closed DB.
func (db *DB) closed() error { return fmt.Errorf("%w: %s", ErrClosed, db.name) }

// commitLoop is the committer.
func (db *DB) commitLoop() {
	defer close(db.done)
	batch := make([]*write, 0, maxBatch)
	expect, took := 0, time.Duration(0) // writers in flight at the last commit, and its duration
	commits := 0
	for {
		select {
		case w := <-db.reqs:
			batch = append(batch[:0], w)
		case <-db.stop:
			return
		}
		batch, took = db.round(batch, expect, took)
		// The pages the commits read leave the resident set every
		// trimEvery commits, and when writing pauses (trim_linux.go).
		if commits++; commits >= trimEvery || (commits >= trimIdle && len(db.reqs) == 0) {
			db.trim()
			commits = 0
		}
		// The writers it answered are likely to write again, and so are
		// those that queued meanwhile.
		expect = len(batch) + len(db.reqs)
		clear(batch)
	}
}

// round opens a transaction, runs in it the writes of batch and those
// that gather brings, each as it arrives (so that their work overlaps the
// wait for the others), commits it and answers them. It returns the
// writes it took and how long the commit took. When a write fails, the
// transaction is rolled back and commit runs the others again.
func (db *DB) round(batch []*write, expect int, took time.Duration) ([]*write, time.Duration) {
	tx, err := db.bolt.Begin(true)
	if err != nil {
		batch = db.gather(batch, expect, took, nil)
		db.answer(batch, outcome{err: fmt.Errorf("%s: %w", db.name, err)})
		return batch, took
	}
	ran, failed := 0, outcome{}
	apply := func(batch []*write) bool {
		ran, failed = runFrom(tx, batch, ran)
		return ran == len(batch)
	}
	batch = db.gather(batch, expect, took, apply)
	start := time.Now()
	if ran < len(batch) { // a write failed: the others run again without it
		_ = tx.Rollback()
		batch[ran].done <- failed
		db.commit(append(batch[:ran:ran], batch[ran+1:]...)) // a copy: batch stays whole
		return batch, time.Since(start)
	}
	db.answer(batch, outcome{err: db.end(tx)})
	return batch, time.Since(start)
}

// end commits tx, or rolls it back while the folder simulates a full
// disk, and returns the error its writes fail with.
func (db *DB) end(tx *bolt.Tx) error {
	err := db.dir.noSpace()
	if err != nil {
		_ = tx.Rollback()
	} else {
		id := uint64(tx.ID())
		if err = tx.Commit(); err == nil && db.dir.record != nil {
			db.dir.record.record(db.name, id) // synced: COMMITS may say so (commits.go)
		}
	}
	if err != nil {
		return fullError(db.dir.path, fmt.Errorf("%s: commit: %w", db.name, err))
	}
	return nil
}

// answer gives every write of batch the outcome o.
func (db *DB) answer(batch []*write, o outcome) {
	for _, w := range batch {
		w.done <- o
	}
}

// gather adds to batch the writes waiting behind its first one, handing
// the batch to apply (when not nil) each time it grew; it stops early when
// apply returns false. When more writers were in flight at the last commit
// (expect), it yields to the goroutines that can run as long as each
// yield brings writes (each commit costs a transaction's pages and two
// syncs, whatever it holds, so fewer and larger commits leave the cores to
// the writers), then waits for as many writers as last time, but at most
// twice as long as the last commit took (took: the writers it answered
// need about as long again to come back), so that they share the next
// sync instead of splitting into groups that take turns. A lone writer
// never waits.
func (db *DB) gather(batch []*write, expect int, took time.Duration, apply func([]*write) bool) []*write {
	ok := func() bool { return apply == nil || apply(batch) }
	want := min(max(expect, 1), maxBatch)
	batch = db.drain(batch)
	if !ok() {
		return batch
	}
	for want > 1 && len(batch) < maxBatch {
		n := len(batch)
		runtime.Gosched()
		if batch = db.drain(batch); len(batch) == n {
			break
		}
		if !ok() {
			return batch
		}
	}
	if len(batch) >= want {
		return batch
	}
	linger := time.NewTimer(min(2*took, maxLinger))
	defer linger.Stop()
	for len(batch) < want {
		select {
		case w := <-db.reqs:
			batch = append(batch, w)
			if !ok() {
				return batch
			}
		case <-linger.C:
			return batch
		case <-db.stop:
			return batch
		}
	}
	return batch
}

// drain adds to batch the writes waiting in the queue, up to maxBatch.
func (db *DB) drain(batch []*write) []*write {
	for len(batch) < maxBatch {
		select {
		case w := <-db.reqs:
			batch = append(batch, w)
		default:
			return batch
		}
	}
	return batch
}

// trimEvery is how many commits the committer makes between two trims of
// the file's mapping (trim_linux.go): a commit reads a few pages (a bulk
// of a thousand rows about ten), so the resident set grows by at most a
// few hundred pages between two.
const trimEvery = 64

// trimIdle is how many commits since the last trim make the committer
// trim when no write waits.
const trimIdle = 8

// Trim drops the pages of the file that reads mapped into memory from the
// process's resident set (they stay in the page cache): for a reader that
// walked much of the file.
func (db *DB) Trim() { db.trim() }

// maxLinger bounds the wait of gather for the writers of the last commit.
const maxLinger = 5 * time.Millisecond

// commit runs the writes of batch in one transaction and reports each
// outcome. A write that fails or panics is answered and left out, and the
// others run again in a fresh transaction.
func (db *DB) commit(batch []*write) {
	for len(batch) > 0 {
		tx, err := db.bolt.Begin(true)
		if err != nil {
			db.answer(batch, outcome{err: fmt.Errorf("%s: %w", db.name, err)})
			return
		}
		failed, o := runFrom(tx, batch, 0)
		if failed == len(batch) {
			db.answer(batch, outcome{err: db.end(tx)})
			return
		}
		_ = tx.Rollback()
		batch[failed].done <- o
		batch = append(batch[:failed:failed], batch[failed+1:]...)
	}
}

// runFrom runs in tx the writes of batch from i on, until one fails or
// panics; it returns that write's index and outcome, or len(batch) when
// all ran.
func runFrom(tx *bolt.Tx, batch []*write, i int) (int, outcome) {
	for ; i < len(batch); i++ {
		if o := run(batch[i].fn, tx); o.err != nil || o.panic != nil {
			return i, o
		}
	}
	return i, outcome{}
}

// run calls fn, turning a panic into an outcome.
func run(fn func(*bolt.Tx) error, tx *bolt.Tx) (o outcome) {
	defer func() {
		if r := recover(); r != nil {
			o = outcome{panic: r}
		}
	}()
	return outcome{err: fn(tx)}
}

// close stops the committer once the writes it took are answered, and
// closes the file.
func (db *DB) close() error {
	db.once.Do(func() {
		if !db.readOnly {
			close(db.stop)
		}
	})
	<-db.done
	return db.bolt.Close()
}
