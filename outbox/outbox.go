// This file holds the Outbox type: Open, Close, Stats, and the state the
// appenders, the sender and Flush share.

package outbox

import (
	"context"
	"log/slog"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/client"
)

// Outbox is a durable queue of table rows in a directory, delivered to
// the app's data backend by a sender of its own. It is safe for
// concurrent use. Open one per directory; Close it when done.
type Outbox struct {
	c      *client.Client
	db     *bolt.DB
	prefix string // of every row id
	set    settings
	log    *slog.Logger

	appends   chan *appendReq // to the committer
	quit      chan struct{}   // closed by Close: blocked appends give up
	stopWrite chan struct{}   // ends the committer once appenders are gone
	work      chan struct{}   // new rows for the sender (capacity 1)
	sctx      context.Context // the sender's; canceled by Close and the client's Stop
	scancel   context.CancelCauseFunc
	done      sync.WaitGroup // committer and sender
	appending sync.WaitGroup // Append calls under way
	unhook    func()
	unreport  func()   // ends the report of the depth to the client's Stats
	hooks     *hookSet // WithHooks; nil when none

	// leaving is held while rows leave the queue on disk (delivered,
	// dead-lettered, dropped) until memory accounts for them, and while
	// checkWaiters reads the queue: a Flush never sees rows gone before
	// the counters, Stats and its own dead and dropped counts have them.
	leaving sync.Mutex

	mu           sync.Mutex
	closed       bool
	space        chan struct{} // closed and replaced when rows leave the queue
	waiters      map[*flushWaiter]struct{}
	lastSeq      uint64
	pending      int64
	pendingBytes int64
	counts       counts
	lastErr      error
	lastErrAt    time.Time
	lastDelivery time.Time
	telling      int   // deliveries whose rows left the queue and whose hooks are not told yet (sender.go)
	senderErr    error // why the sender ended, once it has
	unreported   lost  // rows that left undelivered when no Flush waited for them
}

// counts are the rows that left the queue since Open, by how.
type counts struct{ delivered, deadLettered, dropped uint64 }

// Open opens the outbox in dir, creating the directory and the queue file
// (FileName) when they do not exist, and starts its sender on c. Rows
// left by an earlier process are delivered first, in order; with an id
// column (WithIDColumn) the sender first asks the backend which of the
// rows it may have sent before the process ended were stored.
//
// c may be started later; the sender waits for it. When c stops, the
// sender ends: Append still stores rows, Flush fails with
// client.ErrStopped, and a later Open with a new client delivers them.
//
// Open fails with ErrLocked when another open outbox holds dir (after
// WithLockTimeout), ErrCorrupt when the queue file is damaged, ErrForeign
// when dir holds something else in its place, ErrDisk when the disk
// refuses, and ErrInvalidArgument for a nil client or bad options.
func Open(c *client.Client, dir string, opts ...Option) (*Outbox, error) {
	const op = "Open"
	set := settingsOf(opts)
	if c == nil {
		return nil, opErr(op, "", reason(ErrInvalidArgument, "nil client"))
	}
	if dir == "" {
		return nil, opErr(op, "", reason(ErrInvalidArgument, "empty directory"))
	}
	if err := set.check(); err != nil {
		return nil, opErr(op, "", err)
	}
	db, prefix, err := openDB(dir, set.lockTimeout)
	if err != nil {
		return nil, opErr(op, "", err)
	}
	o := &Outbox{
		c: c, db: db, prefix: prefix, set: set, log: set.logger,
		appends:   make(chan *appendReq),
		quit:      make(chan struct{}),
		stopWrite: make(chan struct{}),
		work:      make(chan struct{}, 1),
		space:     make(chan struct{}),
		waiters:   map[*flushWaiter]struct{}{},
	}
	verify, err := o.load()
	if err != nil {
		_ = db.Close()
		return nil, opErr(op, "", err)
	}
	if set.hooks.n > 0 {
		o.hooks = &o.set.hooks
	}
	o.sctx, o.scancel = context.WithCancelCause(context.Background())
	o.unhook = c.OnStop(func(context.Context) { o.scancel(client.ErrStopped) })
	o.unreport = c.ReportOutbox(func() (int64, int64) {
		o.mu.Lock()
		defer o.mu.Unlock()
		return o.pending, o.pendingBytes
	})
	o.done.Add(2)
	go o.committer()
	go o.sender(verify)
	return o, nil
}

// load reads the counters and records the batch size of this run, so
// that a later run knows how many rows may have been in flight. It
// returns how many rows at the head of each table the sender looks up
// before sending: those an earlier process may have sent without knowing
// the outcome. It reads them here, before Open returns, so that the rows
// this process appends are never taken for an earlier process's.
func (o *Outbox) load() (map[string]int, error) {
	verify := map[string]int{}
	err := o.db.Update(func(tx *bolt.Tx) error {
		meta := tx.Bucket(bucketMeta)
		o.lastSeq = getU64(meta, keySeq)
		o.pending = int64(getU64(meta, keyRows))
		o.pendingBytes = int64(getU64(meta, keyBytes))
		prev := int(getU64(meta, keyBatch))
		batch := max(prev, o.set.batchRows)
		if o.set.idColumn != "" {
			err := forTables(tx, func(t string, b *bolt.Bucket) error {
				n, c := 0, b.Cursor()
				for k, _ := c.First(); k != nil && n < batch; k, _ = c.Next() {
					n++
				}
				if n > 0 {
					verify[t] = n
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		if batch == prev {
			return nil
		}
		return meta.Put(keyBatch, u64(uint64(batch)))
	})
	return verify, diskErr(err)
}

// Close stops the sender and closes the queue file. A send under way is
// abandoned: its rows stay queued and are checked (with an id column) or
// sent again by the next Open. Appends and Flushes waiting in other
// goroutines fail with ErrClosed. Close is idempotent.
func (o *Outbox) Close() error {
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil
	}
	o.closed = true
	close(o.quit)
	o.mu.Unlock()

	o.appending.Wait()
	close(o.stopWrite)
	o.scancel(ErrClosed)
	o.unhook()
	o.unreport()
	o.done.Wait()
	o.failWaiters(ErrClosed)
	return opErr("Close", "", diskErr(o.db.Close()))
}

// Stats describes the queue at one moment.
type Stats struct {
	// Pending and PendingBytes are the rows waiting to be delivered and
	// their size on disk (keys and encoded rows).
	Pending      int64
	PendingBytes int64
	// Oldest is when the oldest pending row was appended, OldestAge how
	// long ago; both zero when nothing is pending.
	Oldest    time.Time
	OldestAge time.Duration
	// Delivered, DeadLettered and Dropped count the rows that left the
	// queue since Open: stored by the backend, refused for good, or
	// deleted by the DropOldest policy.
	Delivered    uint64
	DeadLettered uint64
	Dropped      uint64
	// DeadLetters is the length of the dead-letter list, earlier runs
	// included.
	DeadLetters int
	// LastError is the last failed send, history check or refusal, and
	// LastErrorAt when it happened; LastDelivery is when rows were last
	// delivered. Zero values when none happened since Open.
	LastError    error
	LastErrorAt  time.Time
	LastDelivery time.Time
	// Stopped is why the sender ended (client.ErrStopped when the client
	// stopped, ErrClosed after Close); nil while it runs.
	Stopped error
}

// Stats returns the queue's figures. It reads the queue file for the
// oldest row and the dead-letter count; a disk error leaves them zero.
func (o *Outbox) Stats() Stats {
	o.mu.Lock()
	s := Stats{
		Pending: o.pending, PendingBytes: o.pendingBytes,
		Delivered: o.counts.delivered, DeadLettered: o.counts.deadLettered, Dropped: o.counts.dropped,
		LastError: o.lastErr, LastErrorAt: o.lastErrAt, LastDelivery: o.lastDelivery,
		Stopped: o.senderErr,
	}
	closed := o.closed
	o.mu.Unlock()
	if closed {
		return s
	}
	_ = o.db.View(func(tx *bolt.Tx) error {
		s.DeadLetters = tx.Bucket(bucketDead).Stats().KeyN
		return forTables(tx, func(_ string, b *bolt.Bucket) error {
			if k, v := b.Cursor().First(); k != nil {
				if r, err := decodeRecord(k, v); err == nil && (s.Oldest.IsZero() || r.appended.Before(s.Oldest)) {
					s.Oldest = r.appended
				}
			}
			return nil
		})
	})
	if !s.Oldest.IsZero() {
		s.OldestAge = time.Since(s.Oldest)
	}
	return s
}

// forTables calls fn for the bucket of every table with a queue, in name
// order.
func forTables(tx *bolt.Tx, fn func(table string, b *bolt.Bucket) error) error {
	return tx.Bucket(bucketQueue).ForEachBucket(func(k []byte) error {
		return fn(string(k), tx.Bucket(bucketQueue).Bucket(k))
	})
}

// noteError records the last error the sender met.
func (o *Outbox) noteError(err error) {
	o.mu.Lock()
	o.lastErr, o.lastErrAt = err, time.Now()
	o.mu.Unlock()
}

// spaceChan returns the channel closed when rows next leave the queue.
func (o *Outbox) spaceChan() chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.space
}

// leftLocked accounts for rows that left the queue (delivered or
// dead-lettered): the pending counters, and appenders waiting for room.
// Caller holds o.mu.
func (o *Outbox) leftLocked(rows, bytes int64) {
	o.pending -= rows
	o.pendingBytes -= bytes
	close(o.space)
	o.space = make(chan struct{})
}

// isClosed reports whether Close was called.
func (o *Outbox) isClosed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.closed
}
