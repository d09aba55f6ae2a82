// This file holds the outbox's observation hooks (docs/observability.md):
// WithHooks and the small optional interfaces a hook implements, as
// package client has them for the connection and its traffic. An exporter
// implements both sets; the outbox calls those of this package.

package outbox

import (
	"context"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/client"
)

// Hook is a value given to WithHooks: it implements any of the Hook*
// interfaces of this package. Hooks run synchronously in the outbox's
// goroutines (the appender's, the sender's): they must return quickly and
// never call the Outbox.
type Hook = any

// HookEnqueue is told of every Append and AppendRows stored on disk: ctx
// is the caller's, ids the rows' ids, bytes their size on disk.
type HookEnqueue interface {
	OnEnqueue(ctx context.Context, table string, ids []string, bytes int64)
}

// HookDeliver is told of every row the data backend stored, once per row:
// ctx continues the trace the row was appended in (with the client's
// WithTracePropagation), after a restart too, and age is how long the row
// waited since its Append.
type HookDeliver interface {
	OnDeliver(ctx context.Context, table, id string, age time.Duration)
}

// HookDeadLetter is told of every row moved to the dead-letter list, with
// the refusal's URI ("" when it has none) and the refusal.
type HookDeadLetter interface {
	OnDeadLetter(table, id, uri string, refusal error)
}

// HookDepth is told the queue's depth after every change: rows appended,
// delivered, dead-lettered or dropped.
type HookDepth interface{ OnDepth(d Depth) }

// Depth is the queue's depth at one moment.
type Depth struct {
	Rows, Bytes int64
	// Oldest is when the oldest pending row was appended (zero when the
	// queue is empty); OldestAge how long ago.
	Oldest    time.Time
	OldestAge time.Duration
}

// WithHooks adds observation hooks; each value implements any of the
// Hook* interfaces of this package. A value implementing none makes Open
// fail with ErrInvalidArgument.
func WithHooks(hooks ...Hook) Option {
	return func(s *settings) {
		for _, h := range hooks {
			if !s.hooks.add(h) {
				s.errs = append(s.errs, fmt.Errorf("WithHooks: %T implements no hook interface of package outbox", h))
			}
		}
	}
}

// hookSet is the hooks by interface.
type hookSet struct {
	enqueue []HookEnqueue
	deliver []HookDeliver
	dead    []HookDeadLetter
	depth   []HookDepth
	n       int
}

func (hs *hookSet) add(h Hook) bool {
	ok := false
	if x, is := h.(HookEnqueue); is {
		hs.enqueue, ok = append(hs.enqueue, x), true
	}
	if x, is := h.(HookDeliver); is {
		hs.deliver, ok = append(hs.deliver, x), true
	}
	if x, is := h.(HookDeadLetter); is {
		hs.dead, ok = append(hs.dead, x), true
	}
	if x, is := h.(HookDepth); is {
		hs.depth, ok = append(hs.depth, x), true
	}
	if ok {
		hs.n++
	}
	return ok
}

func (hs *hookSet) enqueued(ctx context.Context, table string, ids []string, bytes int64) {
	for _, h := range hs.enqueue {
		h.OnEnqueue(ctx, table, ids, bytes)
	}
}

func (hs *hookSet) deadLettered(table string, recs []record, refusal error) {
	uri := client.WampURI(refusal)
	for _, r := range recs {
		for _, h := range hs.dead {
			h.OnDeadLetter(table, r.id, uri, refusal)
		}
	}
}

// delivered tells the HookDeliver hooks of the rows of recs just stored,
// each in a ctx continuing its own trace.
func (o *Outbox) delivered(table string, recs []record) {
	if o.hooks == nil || len(o.hooks.deliver) == 0 {
		return
	}
	now := time.Now()
	for _, r := range recs {
		ctx := o.c.ExtractTrace(o.sctx, r.trace.parent, r.trace.state)
		for _, h := range o.hooks.deliver {
			h.OnDeliver(ctx, table, r.id, now.Sub(r.appended))
		}
	}
}

// depthChanged tells the HookDepth hooks the queue's depth; it reads the
// head of every table for the oldest row.
func (o *Outbox) depthChanged() {
	if o.hooks == nil || len(o.hooks.depth) == 0 {
		return
	}
	o.mu.Lock()
	d := Depth{Rows: o.pending, Bytes: o.pendingBytes}
	closed := o.closed
	o.mu.Unlock()
	if !closed && d.Rows > 0 {
		_ = o.db.View(func(tx *bolt.Tx) error {
			return forTables(tx, func(_ string, b *bolt.Bucket) error {
				if k, v := b.Cursor().First(); k != nil {
					if r, err := decodeRecord(k, v); err == nil && (d.Oldest.IsZero() || r.appended.Before(d.Oldest)) {
						d.Oldest = r.appended
					}
				}
				return nil
			})
		})
	}
	if !d.Oldest.IsZero() {
		d.OldestAge = time.Since(d.Oldest)
	}
	for _, h := range o.hooks.depth {
		h.OnDepth(d)
	}
}
