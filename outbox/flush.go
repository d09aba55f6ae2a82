// This file holds Flush: waiting until every row appended so far has left
// the queue, and telling whether all of them were delivered.

package outbox

import (
	"context"
	"encoding/binary"

	bolt "go.etcd.io/bbolt"
)

// flushWaiter is a Flush waiting for the rows up to a sequence.
type flushWaiter struct {
	upTo uint64
	lost
	done chan error // capacity 1
}

// lost counts rows that left the queue undelivered.
type lost struct{ dead, dropped int }

// add counts one row, dead-lettered or dropped.
func (l *lost) add(dead bool) {
	if dead {
		l.dead++
	} else {
		l.dropped++
	}
}

// Flush waits until every row appended before the call has left the
// queue, or ctx ends. It returns nil when all of them were delivered, an
// error matching ErrUndelivered when some were dead-lettered or dropped
// (the others were delivered), client.ErrStopped when the client stopped
// first, ErrClosed when the outbox closed first, or ctx's error. Rows
// appended during the wait are not waited for. Rows that left the queue
// undelivered before the call count too, unless an earlier Flush already
// reported them.
func (o *Outbox) Flush(ctx context.Context) error {
	const op = "Flush"
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return opErr(op, "", ErrClosed)
	}
	w := &flushWaiter{upTo: o.lastSeq, lost: o.unreported, done: make(chan error, 1)}
	o.unreported = lost{}
	o.waiters[w] = struct{}{}
	stopped := o.senderErr
	o.mu.Unlock()
	o.checkWaiters()
	if stopped != nil {
		o.finishWaiter(w, stopped) // unless it was done already
	}
	select {
	case err := <-w.done:
		return opErr(op, "", err)
	case <-ctx.Done():
		o.mu.Lock()
		if _, ok := o.waiters[w]; ok { // not answered: its undelivered rows go to the next Flush
			delete(o.waiters, w)
			o.unreported.dead += w.dead
			o.unreported.dropped += w.dropped
		}
		o.mu.Unlock()
		return opErr(op, "", ctx.Err())
	}
}

// checkWaiters completes the Flushes whose rows have all left the queue.
func (o *Outbox) checkWaiters() {
	o.mu.Lock()
	n := len(o.waiters)
	o.mu.Unlock()
	if n == 0 {
		return
	}
	o.leaving.Lock()
	defer o.leaving.Unlock()
	var first uint64 // the lowest pending sequence; 0 when none
	err := o.db.View(func(tx *bolt.Tx) error {
		return forTables(tx, func(_ string, b *bolt.Bucket) error {
			if k, _ := b.Cursor().First(); len(k) == 8 {
				if s := binary.BigEndian.Uint64(k); first == 0 || s < first {
					first = s
				}
			}
			return nil
		})
	})
	if err != nil {
		return // the sender retries; so does the next check
	}
	o.mu.Lock()
	if o.telling > 0 { // the sender checks again once the hooks are told
		o.mu.Unlock()
		return
	}
	var done []*flushWaiter
	for w := range o.waiters {
		if first == 0 || first > w.upTo {
			done = append(done, w)
		}
	}
	o.mu.Unlock()
	for _, w := range done { // their counts are final: their rows have all left
		var err error
		if w.dead > 0 || w.dropped > 0 {
			err = reason(ErrUndelivered, "%d rows dead-lettered, %d dropped", w.dead, w.dropped)
		}
		o.finishWaiter(w, err)
	}
}

// finishWaiter answers w once.
func (o *Outbox) finishWaiter(w *flushWaiter, err error) {
	o.mu.Lock()
	_, ok := o.waiters[w]
	delete(o.waiters, w)
	o.mu.Unlock()
	if ok {
		w.done <- err
	}
}

// failWaiters answers every waiting Flush with err.
func (o *Outbox) failWaiters(err error) {
	o.mu.Lock()
	ws := make([]*flushWaiter, 0, len(o.waiters))
	for w := range o.waiters {
		ws = append(ws, w)
	}
	o.mu.Unlock()
	for _, w := range ws {
		o.finishWaiter(w, err)
	}
}

// undelivered counts rows that left the queue without being delivered
// for the Flushes waiting for them, and those no Flush waits for for the
// next Flush. Caller holds o.leaving and calls checkWaiters after
// releasing it.
func (o *Outbox) undelivered(recs []record, dead bool) {
	o.mu.Lock()
	for _, r := range recs {
		n := &o.unreported
		for w := range o.waiters {
			if r.seq <= w.upTo {
				n = nil
				w.add(dead)
			}
		}
		if n != nil {
			n.add(dead)
		}
	}
	o.mu.Unlock()
}
