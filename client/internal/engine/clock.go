// This file holds clock, the time source of the keepalive: the system
// clock, or one a test drives to check the keepalive without waiting.

package engine

import "time"

// clock tells the time and makes timers.
type clock interface {
	Now() time.Time
	NewTimer(d time.Duration) timer
	// AfterFunc calls f on a goroutine of its own once d has passed, and
	// again after each Reset; the timer's C is nil.
	AfterFunc(d time.Duration, f func()) timer
}

// timer is a timer of a clock.
type timer interface {
	C() <-chan time.Time
	Reset(d time.Duration)
	Stop()
}

// systemClock is the clock of the time package.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) NewTimer(d time.Duration) timer { return systemTimer{time.NewTimer(d)} }

func (systemClock) AfterFunc(d time.Duration, f func()) timer {
	return systemTimer{time.AfterFunc(d, f)}
}

type systemTimer struct{ t *time.Timer }

func (t systemTimer) C() <-chan time.Time   { return t.t.C }
func (t systemTimer) Reset(d time.Duration) { t.t.Reset(d) }
func (t systemTimer) Stop()                 { t.t.Stop() }
