// This file holds the sender: one goroutine that takes the oldest rows of
// each table in turn (round robin), sends them as one bulk append, and
// removes them once the backend acknowledged them. It never dials: a
// send issued while the link is down waits inside the client for the
// supervisor's next session. After a send whose answer was lost it asks
// the history for the batch's ids (with an id column) before sending
// again; after a refusal it waits (temporary), dead-letters the table's
// batch (unknown table) or splits the batch until the refused row is
// alone and dead-letters it (a row's content).

package outbox

import (
	"context"
	"errors"
	"math"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// tableState is what the sender remembers of one table between sends.
type tableState struct {
	verify   int    // rows at the head to look up before sending; 0 = none
	probe    int    // batch cap while a refused row is looked for; 0 = none
	probeEnd uint64 // the last sequence of the batch that was refused
	retryAt  time.Time
	backoff  time.Duration
}

// sender runs until Close or the client's Stop. verify is how many rows
// at the head of each table an earlier process may have sent without
// knowing the outcome, as Open found them.
func (o *Outbox) sender(verify map[string]int) {
	defer o.done.Done()
	defer o.senderEnded()
	states := map[string]*tableState{}
	for t, n := range verify {
		states[t] = &tableState{verify: n}
	}
	last := ""
	for o.sctx.Err() == nil {
		tables, err := o.pendingTables()
		if err != nil {
			o.noteError(err)
			o.idle(time.Now().Add(o.set.retryMax))
			continue
		}
		table, wake := pick(tables, last, states, time.Now())
		if table == "" {
			o.idle(wake)
			continue
		}
		st := states[table]
		if st == nil {
			st = &tableState{}
			states[table] = st
		}
		last = table
		o.step(table, st)
	}
}

// pick chooses the first table after last (in name order, wrapping) that
// is not waiting after a refusal; wake is when the earliest waiting one
// may go again.
func pick(tables []string, last string, states map[string]*tableState, now time.Time) (table string, wake time.Time) {
	start := 0
	for i, t := range tables {
		if t > last {
			start = i
			break
		}
	}
	for i := range tables {
		t := tables[(start+i)%len(tables)]
		st := states[t]
		if st == nil || !st.retryAt.After(now) {
			return t, time.Time{}
		}
		if wake.IsZero() || st.retryAt.Before(wake) {
			wake = st.retryAt
		}
	}
	return "", wake
}

// idle waits for new rows, until wake (when not zero) or the end.
func (o *Outbox) idle(wake time.Time) {
	var timer <-chan time.Time
	if !wake.IsZero() {
		t := time.NewTimer(time.Until(wake))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-o.work:
	case <-timer:
	case <-o.sctx.Done():
	}
}

// pendingTables lists the tables with pending rows, in name order.
func (o *Outbox) pendingTables() ([]string, error) {
	var tables []string
	err := o.db.View(func(tx *bolt.Tx) error {
		return forTables(tx, func(t string, b *bolt.Bucket) error {
			if k, _ := b.Cursor().First(); k != nil {
				tables = append(tables, t)
			}
			return nil
		})
	})
	return tables, diskErr(err)
}

// step sends (or looks up) one batch of table.
func (o *Outbox) step(table string, st *tableState) {
	limit, bytes := o.set.batchRows, o.set.batchBytes
	switch {
	case st.verify > 0:
		limit, bytes = st.verify, math.MaxInt
	case st.probe > 0:
		limit = st.probe
	}
	recs, err := o.head(table, limit, bytes)
	if err != nil {
		o.noteError(err)
		o.pause(st)
		return
	}
	if len(recs) == 0 {
		return
	}
	if recs[0].damage != nil {
		o.deadLetter(table, recs[:1], recs[0].damage)
		return
	}
	for i, r := range recs {
		if r.damage != nil {
			recs = recs[:i] // send those before it; it comes first next time
			break
		}
	}
	if st.verify > 0 {
		o.verify(table, st, recs)
		return
	}
	err = o.send(table, recs)
	switch classify(err, o.sctx.Err()) {
	case delivered:
		st.backoff = 0
		if st.probe > 0 && recs[len(recs)-1].seq >= st.probeEnd {
			st.probe = 0 // past the batch that was refused
		}
		if o.remove(table, recs) != nil && o.set.idColumn != "" {
			st.verify = len(recs) // stored but still queued: look them up
		}
	case again:
		// The client waits for its supervisor's next session on the next send.
	case stopped:
		o.stopOn(err) // the next Open looks the batch up
	case unknown:
		o.noteError(err)
		if o.set.idColumn != "" {
			st.verify = len(recs)
		}
	case temporary:
		o.noteError(err)
		o.log.Info("outbox: the data backend refused a batch for now; retrying", "table", table, "rows", len(recs), "err", err)
		o.pause(st)
	case tableRefused:
		o.deadLetter(table, recs, err)
	case rowRefused:
		o.refused(table, st, recs, err)
	}
}

// pause makes table wait after a temporary failure: the retry backoff,
// doubling.
func (o *Outbox) pause(st *tableState) {
	st.backoff = min(max(2*st.backoff, o.set.retryInitial), o.set.retryMax)
	st.retryAt = time.Now().Add(st.backoff)
}

// refused handles a batch one of whose rows the backend refuses for
// good. An entity key conflict after a lost answer is our own earlier
// write: with an id column the history tells. Otherwise the batch is
// halved until the refused row is alone, and that row is dead-lettered.
func (o *Outbox) refused(table string, st *tableState, recs []record, err error) {
	if o.set.idColumn != "" && client.WampURI(err) == wire.ErrEntityKeyConflict {
		found, lerr := o.lookup(table, recs)
		switch classify(lerr, o.sctx.Err()) {
		case delivered, rowRefused: // rowRefused: the table cannot be searched by id
		case again, unknown:
			return
		case stopped:
			o.stopOn(lerr)
			return
		default:
			o.noteError(lerr)
			o.pause(st)
			return
		}
		if len(found) > 0 {
			_ = o.remove(table, found)
			return
		}
	}
	o.noteError(err)
	if len(recs) == 1 {
		o.deadLetter(table, recs, err)
		st.probe = 0
		return
	}
	if st.probe == 0 {
		st.probeEnd = recs[len(recs)-1].seq
	}
	st.probe = (len(recs) + 1) / 2
}

// verify looks up the rows at the head of table that may have been
// stored, and removes those the history has.
func (o *Outbox) verify(table string, st *tableState, recs []record) {
	found, err := o.lookup(table, recs)
	switch classify(err, o.sctx.Err()) {
	case delivered:
		st.verify = 0
		_ = o.remove(table, found)
	case again, unknown:
	case stopped:
		o.stopOn(err)
	case tableRefused:
		st.verify = 0 // the send is refused the same way and dead-letters the rows
	case rowRefused:
		// The history cannot be searched by id: the table lacks the id
		// column. Its rows are delivered at least once.
		o.noteError(err)
		o.log.Warn("outbox: cannot look rows up by id; sending them again (at least once)", "table", table, "column", o.set.idColumn, "err", err)
		st.verify = 0
	default:
		o.noteError(err)
		o.pause(st)
	}
}

// head reads up to limit rows (and about bytes bytes) at the head of
// table.
func (o *Outbox) head(table string, limit, bytes int) ([]record, error) {
	var recs []record
	err := o.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketQueue).Bucket([]byte(table))
		if b == nil {
			return nil
		}
		size := 0
		c := b.Cursor()
		for k, v := c.First(); k != nil && len(recs) < limit; k, v = c.Next() {
			r, err := decodeRecord(k, v)
			if err != nil {
				r.damage = err
			}
			if size += r.size; len(recs) > 0 && size > bytes {
				break
			}
			recs = append(recs, r)
		}
		return nil
	})
	return recs, diskErr(err)
}

// send makes one bulk append of recs, with their ids in the id column.
func (o *Outbox) send(table string, recs []record) error {
	rows := make([]map[string]any, len(recs))
	for i, r := range recs {
		if o.set.idColumn != "" {
			r.row[o.set.idColumn] = r.id
		}
		rows[i] = r.row
	}
	ctx, cancel := context.WithTimeout(o.sctx, o.set.sendTimeout)
	defer cancel()
	// The batch goes in the trace of its first row; every row's own trace
	// gets its delivery through HookDeliver (see delivered).
	ctx = o.c.ExtractTrace(ctx, recs[0].trace.parent, recs[0].trace.state)
	res, err := o.c.AppendRowsToTable(ctx, table, rows)
	if err == nil && res.Count != len(rows) {
		o.log.Warn("outbox: the data backend acknowledged a different number of rows", "table", table, "sent", len(rows), "count", res.Count)
	}
	return err
}

// lookup returns the records of recs whose id the table's history holds.
func (o *Outbox) lookup(table string, recs []record) ([]record, error) {
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = r.id
	}
	ctx, cancel := context.WithTimeout(o.sctx, o.set.sendTimeout)
	defer cancel()
	rows, err := o.c.GetHistory(ctx, table, &client.Query{
		Limit:     client.MaxHistoryLimit,
		FilterAnd: []client.Filter{client.Where(o.set.idColumn, "IN", ids)},
		Columns:   []string{o.set.idColumn},
	})
	if err != nil {
		return nil, err
	}
	stored := make(map[string]bool, len(rows))
	for _, r := range rows {
		if id, ok := r[o.set.idColumn].(string); ok {
			stored[id] = true
		}
	}
	var found []record
	for _, r := range recs {
		if stored[r.id] {
			found = append(found, r)
		}
	}
	return found, nil
}

// remove deletes delivered rows from the queue.
func (o *Outbox) remove(table string, recs []record) error {
	var rows, bytes int64
	var gone []record
	o.leaving.Lock()
	err := o.db.Update(func(tx *bolt.Tx) error {
		rows, bytes, gone = 0, 0, gone[:0]
		b := tx.Bucket(bucketQueue).Bucket([]byte(table))
		for _, r := range recs {
			k := u64(r.seq)
			if b == nil || b.Get(k) == nil {
				continue // dropped while it was being sent
			}
			if err := b.Delete(k); err != nil {
				return err
			}
			rows, bytes = rows+1, bytes+int64(r.size)
			gone = append(gone, r)
		}
		return addCounts(tx, -rows, -bytes)
	})
	if err != nil {
		o.leaving.Unlock()
		err = diskErr(err)
		o.noteError(err)
		return err
	}
	o.mu.Lock()
	o.leftLocked(rows, bytes)
	o.counts.delivered += uint64(rows)
	o.lastDelivery = time.Now()
	o.telling++ // no Flush returns on the rows gone until their hooks are told
	o.mu.Unlock()
	o.leaving.Unlock()
	o.delivered(table, gone) // before a Flush waiting for them returns
	o.mu.Lock()
	o.telling--
	o.mu.Unlock()
	o.depthChanged()
	o.checkWaiters()
	return nil
}

// stopOn ends the sender when err says the client stopped.
func (o *Outbox) stopOn(err error) {
	if errors.Is(err, client.ErrStopped) {
		o.scancel(client.ErrStopped)
	}
}

// senderEnded records why the sender ended and fails the Flushes.
func (o *Outbox) senderEnded() {
	cause := context.Cause(o.sctx)
	if cause == nil || errors.Is(cause, context.Canceled) {
		cause = ErrClosed
	}
	o.mu.Lock()
	o.senderErr = cause
	o.mu.Unlock()
	o.failWaiters(cause)
}
