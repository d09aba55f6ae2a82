// This file holds ctxHook: what makes the end of a reading caller's ctx
// interrupt the link's fill (see lead in leader.go).
//
// A hook is a context.AfterFunc, which costs a registration with the ctx
// and its removal: a few hundred nanoseconds, and two allocations, per
// request if taken for each. Apps mostly pass the same long-lived ctx to
// every operation of a loop, so a hook is kept once a ctx comes back for
// the next request, and serves every request of that ctx without cost; it
// is removed when a request with another ctx reads, or when the session
// ends. A ctx seen once, such as one made for a single call, gets a hook
// for its request only, as before: kept, its end (its cancel, called when
// the call returned) would interrupt a later reader for nothing.

package engine

import (
	"context"
	"sync"
)

// ctxHook keeps at most one hook, and remembers the ctx of the last
// request that read. Contexts are told apart by their Done channel: a
// value or a deadline-less wrapper of a ctx ends with it.
type ctxHook struct {
	mu    sync.Mutex
	kept  <-chan struct{} // the Done of the ctx whose hook is kept
	stop  func() bool     // removes the kept hook; nil when none is kept
	last  <-chan struct{} // the Done of the ctx of the last request that read
	ended bool            // the session ended: no more hooks
}

// enter makes the end of ctx run interrupt while a request of ctx reads.
// It returns the removal of a hook taken for this request alone, which the
// caller runs when it stops reading, or nil when there is nothing to
// remove: ctx never ends, or its hook is kept.
func (h *ctxHook) enter(ctx context.Context, interrupt func()) func() bool {
	done := ctx.Done()
	if done == nil {
		return nil
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stop != nil && h.kept == done {
		return nil
	}
	if h.ended {
		// The link is closed: a fill ends on its own.
		return nil
	}
	if h.stop != nil {
		h.stop()
		h.kept, h.stop = nil, nil
	}
	stop := context.AfterFunc(ctx, interrupt)
	if h.last == done {
		h.kept, h.stop = done, stop
		return nil
	}
	h.last = done
	return stop
}

// end removes the kept hook, so that the session is not held by a ctx
// that outlives it, and refuses new ones.
func (h *ctxHook) end() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ended = true
	if h.stop != nil {
		h.stop()
	}
	h.kept, h.stop, h.last = nil, nil, nil
}
