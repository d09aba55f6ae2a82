// This file holds the watch on sessions leaving a realm, which a takeover
// (force_reregister, reregister.go) needs when the owner of a procedure is
// already leaving: its link is closing, so it can no longer be told to
// unregister, yet nexus still lists it as the callee until it has removed
// the session. nexus publishes wamp.session.on_leave once it has removed
// the session from its dealer and broker; the platform's own session of
// the realm subscribes to it, and a takeover waits for that event.

package router

import (
	"context"
	"sync"

	"github.com/gammazero/nexus/v3/wamp"
)

// leaveWatch closes a channel for each session a waiter watches once nexus
// reports it gone.
type leaveWatch struct {
	mu      sync.Mutex
	waiting map[uint64]chan struct{}
}

// watch returns a channel closed when session id has left, and the
// function that stops watching it. A waiter watches first and then checks
// that nexus still lists the session, so an event that came before the
// watch is never waited for.
func (lw *leaveWatch) watch(id uint64) (<-chan struct{}, func()) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.waiting == nil {
		lw.waiting = map[uint64]chan struct{}{}
	}
	ch, ok := lw.waiting[id]
	if !ok {
		ch = make(chan struct{})
		lw.waiting[id] = ch
	}
	return ch, func() {
		lw.mu.Lock()
		if lw.waiting[id] == ch {
			delete(lw.waiting, id)
		}
		lw.mu.Unlock()
	}
}

// onLeave is the handler of wamp.session.on_leave: [session, authid,
// authrole].
func (lw *leaveWatch) onLeave(ev *wamp.Event) {
	if len(ev.Arguments) == 0 {
		return
	}
	id, ok := wamp.AsID(ev.Arguments[0])
	if !ok {
		return
	}
	lw.mu.Lock()
	if ch, ok := lw.waiting[uint64(id)]; ok {
		close(ch)
		delete(lw.waiting, uint64(id))
	}
	lw.mu.Unlock()
}

// awaitGone waits until session id has left the realm, or ctx ends.
// listed reports whether nexus still lists the session where the waiter
// cares (the callees of a registration); it is asked once the watch is
// set.
func (lw *leaveWatch) awaitGone(ctx context.Context, id uint64, listed func(context.Context) bool) error {
	left, stop := lw.watch(id)
	defer stop()
	if !listed(ctx) {
		return nil
	}
	select {
	case <-left:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
