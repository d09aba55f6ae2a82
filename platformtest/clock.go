// This file holds the platform clock: platform time is real time plus an
// offset that tests move with Advance and Set. Credential grace periods and
// every timestamp the platform hands out use it.

package platformtest

import (
	"sync"
	"time"
)

// Clock is the time of one platform. It runs with real time and can be
// moved forward (Advance) or set (Set); both only shift an offset, so time
// keeps running afterwards. A Clock is safe for concurrent use.
type Clock struct {
	mu      sync.Mutex
	offset  time.Duration
	waiters map[*clockWaiter]struct{}
	stopped bool
}

type clockWaiter struct {
	deadline time.Time // platform time at which the waiter fires
	ch       chan time.Time
	timer    *time.Timer
}

func newClock(start time.Time) *Clock {
	c := &Clock{waiters: map[*clockWaiter]struct{}{}}
	if !start.IsZero() {
		c.offset = time.Until(start)
	}
	return c
}

// Now returns the current platform time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

func (c *Clock) nowLocked() time.Time { return time.Now().Add(c.offset).Round(0) }

// Advance moves platform time forward by d (a negative d moves it back).
// Channels from After whose time has come fire at once.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset += d
	c.rescheduleLocked()
}

// Set makes the platform time t from now on.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.offset = time.Until(t)
	c.rescheduleLocked()
}

// After returns a channel that receives the platform time once platform
// time reaches Now()+d, through real time passing or through Advance or
// Set. The channel has a buffer of one and fires once. After a platform
// closes, pending channels never fire.
func (c *Clock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	w := &clockWaiter{deadline: c.nowLocked().Add(d), ch: make(chan time.Time, 1)}
	if c.stopped {
		return w.ch
	}
	if d <= 0 {
		w.ch <- c.nowLocked()
		return w.ch
	}
	c.waiters[w] = struct{}{}
	w.timer = time.AfterFunc(d, func() { c.check(w) })
	return w.ch
}

// check fires w when its deadline has passed, else re-arms its timer.
func (c *Clock) check(w *clockWaiter) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.waiters[w]; !ok {
		return
	}
	c.fireOrRearmLocked(w)
}

func (c *Clock) rescheduleLocked() {
	for w := range c.waiters {
		c.fireOrRearmLocked(w)
	}
}

func (c *Clock) fireOrRearmLocked(w *clockWaiter) {
	now := c.nowLocked()
	if left := w.deadline.Sub(now); left > 0 {
		w.timer.Reset(left)
		return
	}
	w.timer.Stop()
	delete(c.waiters, w)
	w.ch <- now
}

// stop cancels every pending waiter; used when the platform closes.
func (c *Clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	for w := range c.waiters {
		w.timer.Stop()
		delete(c.waiters, w)
	}
}
