// This file holds the rate limits of the secret procedures (docs/wire.md
// §7.13): per (operation, caller authid) a fixed window of 60 seconds of
// platform time (Host.Clock, which tests move), secret.reveal.<t> 30 and
// secret.verify.<t> 120 calls per window, across the backend's tables.
// A call over the limit is refused with sys.dataservice.error.rate_limited
// and does not count. It serves no URI.
//
// Choices where the documents are silent: a window starts with the first
// call that finds none open and ends 60 s later (it is not aligned to the
// minute); platform time moved back before a window's start opens a new
// one; every call that passes the role check counts, refused ones (a bad
// payload, a secret filter) included.

package fleetdb

import (
	"sync"
	"time"
)

// rateWindow is the length of a rate-limit window.
const rateWindow = 60 * time.Second

// Calls allowed per window and caller.
const (
	revealPerWindow = 30
	verifyPerWindow = 120
)

// rateLimits counts the calls of each (operation, caller) in its window.
// The zero value is ready for use.
type rateLimits struct {
	mu      sync.Mutex
	windows map[rateKey]*window
}

type rateKey struct{ op, caller string }

type window struct {
	start time.Time
	calls int
}

// pruneAbove is the number of windows above which ended ones are
// forgotten when a new one opens.
const pruneAbove = 1024

// take counts a call of op by caller at now against limit. It returns
// false, and how long until the window ends, when the window is full.
func (l *rateLimits) take(op, caller string, limit int, now time.Time) (ok bool, wait time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k := rateKey{op, caller}
	w := l.windows[k]
	if w == nil || now.Before(w.start) || !now.Before(w.start.Add(rateWindow)) {
		if l.windows == nil {
			l.windows = map[rateKey]*window{}
		}
		if len(l.windows) >= pruneAbove {
			for key, old := range l.windows {
				if !now.Before(old.start.Add(rateWindow)) {
					delete(l.windows, key)
				}
			}
		}
		w = &window{start: now}
		l.windows[k] = w
	}
	if w.calls >= limit {
		return false, w.start.Add(rateWindow).Sub(now)
	}
	w.calls++
	return true, 0
}
