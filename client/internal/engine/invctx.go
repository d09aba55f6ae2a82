// This file holds invocationCtx, the context of an invocation's handler
// (and of NewEndContext, endctx.go).
//
// A context.WithCancel (or WithTimeout) per invocation costs its
// allocation, its place among the session context's children (a map
// insert and delete under the parent's lock, which concurrent invocations
// share) and, for a timeout, a timer. Most handlers only pass their ctx on
// or look at it once; this one costs a single small allocation, and makes
// its Done channel, and its deadline's timer, only when someone asks for
// them (Done, or a context derived from it through AfterFunc).

package engine

import (
	"context"
	"sync"
	"time"
)

// closedChan is the Done channel of a context asked for it once it ended.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// invocationCtx ends when the caller cancels (INTERRUPT, which marks it
// interrupted), when the call's timeout passes (context.DeadlineExceeded), when
// the session ends, or when the handler has returned (context.Canceled).
// It carries no values.
type invocationCtx struct {
	deadline time.Time // zero: none

	mu          sync.Mutex
	done        chan struct{} // made on demand
	err         error
	interrupted bool
	base        bool        // NewEndContext's: named as context.WithCancel's
	timer       *time.Timer // the deadline's, made with done
	funcs       []*afterFunc
}

// afterFunc is a function registered with AfterFunc.
type afterFunc struct{ f func() }

// newInvocationCtx returns the context of an invocation with the call's
// timeout in milliseconds (0: none), ended already when ended is set.
func newInvocationCtx(timeoutMs int64, ended bool) *invocationCtx {
	c := &invocationCtx{}
	if timeoutMs > 0 {
		c.deadline = time.Now().Add(time.Duration(timeoutMs) * time.Millisecond)
	}
	if ended {
		c.err = context.Canceled
	}
	return c
}

// Deadline returns the deadline of the call's timeout, if it has one.
func (c *invocationCtx) Deadline() (time.Time, bool) { return c.deadline, !c.deadline.IsZero() }

// Done returns a channel closed when the context ends.
func (c *invocationCtx) Done() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done == nil {
		if c.err != nil {
			return closedChan
		}
		c.done = make(chan struct{})
		c.armLocked()
	}
	return c.done
}

// Err returns why the context ended, nil while it has not.
func (c *invocationCtx) Err() error {
	c.mu.Lock()
	err := c.err
	c.mu.Unlock()
	if err == nil && !c.deadline.IsZero() && !time.Now().Before(c.deadline) {
		c.end(context.DeadlineExceeded)
		c.mu.Lock()
		err = c.err
		c.mu.Unlock()
	}
	return err
}

// Value returns nil: the context carries no values.
func (c *invocationCtx) Value(any) any { return nil }

// String names the context (fmt and context's own String use it).
func (c *invocationCtx) String() string {
	if c.base {
		return "context.Background.WithCancel"
	}
	return "ironflock.invocationContext"
}

// AfterFunc runs f in its own goroutine once the context ends (at once if
// it has), unless stop is called first; stop reports whether it stopped
// f. The context package uses it for the contexts derived from this one,
// instead of a goroutine watching Done.
func (c *invocationCtx) AfterFunc(f func()) (stop func() bool) {
	a := &afterFunc{f: f}
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		go f()
		return func() bool { return false }
	}
	c.funcs = append(c.funcs, a)
	c.armLocked()
	c.mu.Unlock()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.funcs {
			if x == a {
				c.funcs = append(c.funcs[:i], c.funcs[i+1:]...)
				return true
			}
		}
		return false
	}
}

// armLocked starts the deadline's timer unless there is none or it runs.
func (c *invocationCtx) armLocked() {
	if c.deadline.IsZero() || c.timer != nil {
		return
	}
	c.timer = time.AfterFunc(time.Until(c.deadline), func() { c.end(context.DeadlineExceeded) })
}

// interrupt notes the caller's cancellation and ends the context.
func (c *invocationCtx) interrupt() {
	c.mu.Lock()
	c.interrupted = true
	c.mu.Unlock()
	c.end(context.Canceled)
}

// end ends the context with err; the first end wins.
func (c *invocationCtx) end(err error) {
	c.mu.Lock()
	if c.err != nil {
		c.mu.Unlock()
		return
	}
	c.err = err
	if c.done != nil {
		close(c.done)
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	funcs := c.funcs
	c.funcs = nil
	c.mu.Unlock()
	for _, a := range funcs {
		go a.f()
	}
}

// wasInterrupted reports whether the caller canceled.
func (c *invocationCtx) wasInterrupted() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.interrupted
}
