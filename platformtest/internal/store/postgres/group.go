// This file holds the grouping of appends (write.go): the appends to a
// table that come while maxInFlight writes of that table are in flight
// wait in the table's queue, and when a write ends its caller hands the
// whole queue (up to maxGroupRows rows) to the first caller waiting, which
// stores it in one write: one round trip and one commit for all, where
// each append alone costs PostgreSQL a commit and flockd a round trip
// (BenchmarkAppendDB in cmd/flockd measures both). An append that finds
// fewer writes in flight is written at once, as alone: grouping adds no
// wait, it only gathers what would have waited anyway.
//
// Each append stays all or none, and its answer its own: a write of
// several appends that PostgreSQL refuses (a conflict, a value out of
// range) was rolled back whole, and its appends are written again one by
// one, each answered with its own outcome. A write whose answer was lost
// (store.ErrOutcomeUnknown) is not repeated: each of its appends may be
// stored, and is answered so. An append still waiting leaves when its
// context ends, stored nowhere; one taken into a write waits for that
// write's outcome (one round trip), which ends early only when every
// context of the write has ended.

package postgres

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// maxInFlight is how many writes of one table run at once: fewer than the
// pool's connections (four by default), so that one busy table leaves
// connections to the others and its appends gather behind.
const maxInFlight = 1

// maxGroupRows bounds the rows one write takes from the queue (an append
// of more rows is written alone).
const maxGroupRows = 1000

// appendQueue is a table's writes in flight and the appends waiting.
type appendQueue struct {
	mu       sync.Mutex
	inFlight int
	waiting  []*appendCall
}

// appendCall is one caller's append.
type appendCall struct {
	ctx    context.Context
	rows   []*store.NewRow
	args   [][]any // the rows' driver values
	merges bool    // a row is merged (pgTable.complete)
	err    error   // the outcome, set before the caller is woken
	// next wakes a waiting caller: nil once err is set, else the group it
	// now writes (itself first).
	next chan []*appendCall
}

// appendGrouped writes c at once when fewer than maxInFlight writes of pt
// are in flight, else waits for a write to hand it on, alone or in a group.
func (t *pgTables) appendGrouped(pt *pgTable, c *appendCall) error {
	q := &pt.appends
	q.mu.Lock()
	if q.inFlight < maxInFlight {
		q.inFlight++
		q.mu.Unlock()
		t.writeGroup(pt, []*appendCall{c})
		return c.err
	}
	c.next = make(chan []*appendCall, 1)
	q.waiting = append(q.waiting, c)
	q.mu.Unlock()
	var g []*appendCall
	select {
	case g = <-c.next:
	case <-c.ctx.Done():
		q.mu.Lock()
		if i := slices.Index(q.waiting, c); i >= 0 {
			q.waiting = slices.Delete(q.waiting, i, i+1)
			q.mu.Unlock()
			return c.ctx.Err()
		}
		q.mu.Unlock()
		g = <-c.next // taken into a write: its outcome is near
	}
	if g != nil {
		t.writeGroup(pt, g)
	}
	return c.err
}

// writeGroup writes the appends of g (its caller's first) and answers
// them, then hands the appends waiting to the first of them, or leaves a
// place in flight free.
func (t *pgTables) writeGroup(pt *pgTable, g []*appendCall) {
	if len(g) == 1 {
		t.writeAlone(pt, g[0])
	} else {
		t.writeSeveral(pt, g)
	}
	q := &pt.appends
	q.mu.Lock()
	next := q.takeLocked()
	if next == nil {
		q.inFlight--
	}
	q.mu.Unlock()
	for _, c := range g[1:] {
		c.next <- nil
	}
	if next != nil {
		next[0].next <- next
	}
}

// takeLocked takes the appends waiting, oldest first, up to maxGroupRows
// rows (at least one append); nil when none waits.
func (q *appendQueue) takeLocked() []*appendCall {
	if len(q.waiting) == 0 {
		return nil
	}
	n, rows := 1, len(q.waiting[0].rows)
	for n < len(q.waiting) && rows+len(q.waiting[n].rows) <= maxGroupRows {
		rows += len(q.waiting[n].rows)
		n++
	}
	g := slices.Clone(q.waiting[:n])
	q.waiting = slices.Delete(q.waiting, 0, n)
	return g
}

// writeSeveral writes the appends of g in one write and sets each one's
// outcome; a refused write is repeated one append at a time.
func (t *pgTables) writeSeveral(pt *pgTable, g []*appendCall) {
	var rows []*store.NewRow
	var args [][]any
	merges := false
	for _, c := range g {
		rows = append(rows, c.rows...)
		args = append(args, c.args...)
		merges = merges || c.merges
	}
	// A merge changes the rows' values: a write repeated starts again from
	// the values as they came.
	var orig [][]any
	if merges {
		orig = make([][]any, len(rows))
		for n, nr := range rows {
			orig[n] = slices.Clone(nr.Vals)
		}
	}
	ctx, stop := groupContext(g)
	err := t.write(ctx, pt, rows, args, merges)
	stop()
	if err == nil || answerLost(err) {
		err = pt.writeError(err)
		for _, c := range g {
			c.err = err
		}
		return
	}
	for n, nr := range rows {
		nr.Merged = false
		if orig != nil {
			copy(nr.Vals, orig[n])
		}
	}
	for _, c := range g {
		t.writeAlone(pt, c)
	}
}

// writeAlone writes c's rows in a write of their own and sets its outcome.
func (t *pgTables) writeAlone(pt *pgTable, c *appendCall) {
	c.err = pt.writeError(t.write(c.ctx, pt, c.rows, c.args, c.merges))
}

// groupContext returns the context of a write of g's appends, which ends
// once every one of their contexts has ended, and its release.
func groupContext(g []*appendCall) (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.WithoutCancel(g[0].ctx))
	var left atomic.Int32
	left.Store(int32(len(g)))
	stops := make([]func() bool, len(g))
	for i, c := range g {
		stops[i] = context.AfterFunc(c.ctx, func() {
			if left.Add(-1) == 0 {
				cancel()
			}
		})
	}
	return ctx, func() {
		for _, stop := range stops {
			stop()
		}
		cancel()
	}
}
