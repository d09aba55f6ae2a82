// This file holds Client.Stats, a snapshot of the client's counters, kept
// with atomics whether hooks are set or not.

package client

import (
	"sync/atomic"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// Stats is a snapshot of what a client did since New (Client.Stats).
type Stats struct {
	// MessagesIn and MessagesOut count the WAMP messages read and written
	// on every session, joins included; BytesIn and BytesOut their size as
	// encoded (without WebSocket framing).
	MessagesIn, MessagesOut uint64
	BytesIn, BytesOut       uint64
	// Sessions counts the sessions announced; Reconnects those after the
	// first.
	Sessions, Reconnects uint64
	// PendingCalls is the calls waiting for their result, PendingAcks the
	// acknowledged publications waiting for the router's answer.
	PendingCalls, PendingAcks int64
	// OutboxRows and OutboxBytes are the rows and bytes waiting in the
	// outboxes open on this client (package outbox); 0 without one.
	OutboxRows, OutboxBytes int64
}

// stats are the counters behind Stats.
type stats struct {
	wire                      engine.Counters
	sessions                  atomic.Uint64
	pendingCalls, pendingAcks atomic.Int64
	outboxes                  atomic.Pointer[[]*outboxSource]
}

// outboxSource reports the depth of one open outbox.
type outboxSource struct{ depth func() (rows, bytes int64) }

// Stats returns a snapshot of the client's counters. It is safe to call at
// any time, from any goroutine, and costs no lock.
func (c *Client) Stats() Stats {
	st := &c.stats
	s := Stats{
		MessagesIn:   st.wire.MessagesIn.Load(),
		MessagesOut:  st.wire.MessagesOut.Load(),
		BytesIn:      st.wire.BytesIn.Load(),
		BytesOut:     st.wire.BytesOut.Load(),
		Sessions:     st.sessions.Load(),
		PendingCalls: st.pendingCalls.Load(),
		PendingAcks:  st.pendingAcks.Load(),
	}
	if s.Sessions > 1 {
		s.Reconnects = s.Sessions - 1
	}
	if p := st.outboxes.Load(); p != nil {
		for _, o := range *p {
			r, b := o.depth()
			s.OutboxRows += r
			s.OutboxBytes += b
		}
	}
	return s
}

// ReportOutbox adds depth, the rows and bytes waiting in a store of rows
// not yet delivered, to Stats until remove is called. Package outbox calls
// it for every outbox opened on the client; depth must be cheap and safe
// for concurrent use.
func (c *Client) ReportOutbox(depth func() (rows, bytes int64)) (remove func()) {
	src := &outboxSource{depth: depth}
	for {
		old := c.stats.outboxes.Load()
		var next []*outboxSource
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, src)
		if c.stats.outboxes.CompareAndSwap(old, &next) {
			break
		}
	}
	return func() {
		for {
			old := c.stats.outboxes.Load()
			if old == nil {
				return
			}
			next := make([]*outboxSource, 0, len(*old))
			for _, o := range *old {
				if o != src {
					next = append(next, o)
				}
			}
			if c.stats.outboxes.CompareAndSwap(old, &next) {
				return
			}
		}
	}
}
