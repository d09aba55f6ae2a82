// This file holds the admission of WebSocket links to authentication: at
// most Limits.MaxUnauthenticated links authenticate at once, and more wait
// in line for a place (at most Limits.AdmissionLine of them, each at most
// Limits.AdmissionWait) before one is answered 503 with Retry-After. In a
// storm the line keeps the router busy at the rate it admits links, where
// a refusal would cost each device a second connection and leave the
// router idle until the slot it was told.

package router

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// admission counts the places held by links authenticating and keeps the
// line of links waiting for one, oldest first.
type admission struct {
	mu   sync.Mutex
	held int
	line list.List // of chan struct{}: closed when the place is handed over
}

// counts returns the places held and the links waiting in line.
func (a *admission) counts() (held, waiting int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.held, a.line.Len()
}

// enter takes a place among places, waiting in line (at most line links
// long) up to wait for one when all are held; it reports whether the link
// holds a place, which it gives back with leave. A link never passes the
// line: a place freed goes to the oldest waiting.
func (a *admission) enter(ctx context.Context, places, line int, wait time.Duration) bool {
	a.mu.Lock()
	if a.held < places && a.line.Len() == 0 {
		a.held++
		a.mu.Unlock()
		return true
	}
	if a.line.Len() >= line || wait <= 0 {
		a.mu.Unlock()
		return false
	}
	handed := make(chan struct{})
	e := a.line.PushBack(handed)
	a.mu.Unlock()

	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-handed:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	select {
	case <-handed: // handed a place as the wait ended: the link holds it
		return true
	default:
	}
	a.line.Remove(e)
	return false
}

// leave gives a place back: to the oldest link in line, else to the pool.
func (a *admission) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if f := a.line.Front(); f != nil {
		a.line.Remove(f)
		close(f.Value.(chan struct{}))
		return
	}
	a.held--
}
