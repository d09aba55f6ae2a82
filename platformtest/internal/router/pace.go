// This file holds the pacing of the links refused over the cap of links
// awaiting authentication: each refusal's Retry-After is the next free
// slot at the rate the router admits links, so that the devices of a
// storm come back spread over the time their admission takes, about once
// each, instead of every few seconds until a place is free.

package router

import (
	"sync"
	"time"
)

const (
	// paceWindow is the shortest window over which admissions measure the
	// rate; a window counts only while refusals ran throughout it (the cap
	// was full, so admissions ran as fast as the router could).
	paceWindow = 250 * time.Millisecond
	// paceGap ends a window: refusals that pause longer start a new one.
	paceGap = time.Second
	// paceHeadroom: slots are given at this multiple of the measured rate.
	// Links that come a little early wait in the admission line
	// (admission.go), and a second refusal only once it is full; slots
	// too far apart would leave the router idle while devices wait.
	paceHeadroom = 1.25
	// pacePerSlot is the least rate of slots, per place under the cap
	// (with the default cap 2,048 a second): a link admitted within 125
	// ms. Before a rate is measured it is the rate: a storm's first
	// refusals would otherwise be spread at a guess below what the router
	// admits, and the router would sit idle while the devices wait for
	// their slots; those that come before a place is free wait in line.
	pacePerSlot = 8
	// maxRetryAfter is the longest wait told, in seconds: the SDK waits at
	// most a minute whatever it is told (client/backoff.go).
	maxRetryAfter = 60
)

// pacer gives refused links their slots.
type pacer struct {
	mu    sync.Mutex
	next  time.Time // the first slot not yet given
	rate  float64   // admissions per second while the cap was full; 0: not measured yet
	from  time.Time // start of the measuring window
	fromN int64     // admissions counted when the window started
	last  time.Time // the last refusal
}

// retryAfter returns the whole seconds, at least 1 and at most
// maxRetryAfter, that a link refused at now is told to wait; admitted is
// the count of links admitted so far and capacity the cap.
func (p *pacer) retryAfter(now time.Time, admitted int64, capacity int) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.last.IsZero() || now.Sub(p.last) > paceGap:
		p.from, p.fromN = now, admitted
	case now.Sub(p.from) >= paceWindow:
		r := float64(admitted-p.fromN) / now.Sub(p.from).Seconds()
		if p.rate == 0 {
			p.rate = r
		} else {
			p.rate = (p.rate + r) / 2
		}
		p.from, p.fromN = now, admitted
	}
	p.last = now
	rate := max(paceHeadroom*p.rate, float64(pacePerSlot*capacity))
	slot := p.next
	if first := now.Add(time.Second); slot.Before(first) {
		slot = first
	}
	secs := int(slot.Sub(now) / time.Second) // the slot's second: a link may come a little early
	if secs >= maxRetryAfter {
		return maxRetryAfter // a slot past the longest wait is not given: the link asks again then
	}
	p.next = slot.Add(time.Duration(float64(time.Second) / rate))
	return secs
}
