package router

import (
	"testing"
	"time"
)

// TestPaceBeforeMeasuring: until a rate is measured, slots are given at
// eight links a second per place under the cap, starting a second on.
func TestPaceBeforeMeasuring(t *testing.T) {
	var p pacer
	t0 := time.Unix(1000, 0)
	const capacity = 8 // 64 slots a second
	for i := range 200 {
		want := 1 + i/64
		if got := p.retryAfter(t0, 0, capacity); got != want {
			t.Fatalf("refusal %d: Retry-After %d, want %d", i, got, want)
		}
	}
}

// TestPaceMeasuredRate: refusals that run throughout a window measure
// the admissions in it, and later slots are given at 1.25 times that rate.
func TestPaceMeasuredRate(t *testing.T) {
	var p pacer
	t0 := time.Unix(1000, 0)
	p.retryAfter(t0, 0, 1) // starts the window; prior 8/s
	// 300 admissions in the next 300 ms (1,000/s), with refusals in between.
	p.retryAfter(t0.Add(100*time.Millisecond), 100, 1)
	p.retryAfter(t0.Add(300*time.Millisecond), 300, 1) // window ends: rate 1,000/s
	if p.rate != 1000 {
		t.Fatalf("rate %v, want 1000", p.rate)
	}
	now := t0.Add(400 * time.Millisecond)
	p.retryAfter(now, 400, 1) // the slot a second on
	first := p.next
	p.retryAfter(now, 400, 1)
	if step := p.next.Sub(first); step != time.Second/1250 {
		t.Errorf("slots %v apart, want %v (1.25 times the measured rate)", step, time.Second/1250)
	}
	// 2,000 more refusals at once: the last ones are told about a second
	// more than the first, not four minutes (the prior's 8/s).
	var last int
	for range 2000 {
		last = p.retryAfter(now, 400, 1)
	}
	if last != 2 {
		t.Errorf("the 2,000th refusal waits %d s, want 2", last)
	}
}

// TestPacePauseStartsAWindow: admissions over a pause in the refusals
// (the cap was not full) do not count as the rate.
func TestPacePauseStartsAWindow(t *testing.T) {
	var p pacer
	t0 := time.Unix(1000, 0)
	p.retryAfter(t0, 0, 1)
	p.retryAfter(t0.Add(5*time.Second), 10, 1)
	if p.rate != 0 {
		t.Errorf("rate %v measured across a pause, want none", p.rate)
	}
	if p.from != t0.Add(5*time.Second) || p.fromN != 10 {
		t.Errorf("window starts at %v with %d, want the refusal after the pause", p.from, p.fromN)
	}
}

// TestPaceLongestWait: no link is told more than a minute, and a slot
// past it is not given away.
func TestPaceLongestWait(t *testing.T) {
	var p pacer
	t0 := time.Unix(1000, 0)
	for range 8 * 59 {
		p.retryAfter(t0, 0, 1) // fills the slots up to 60 s at 8/s
	}
	next := p.next
	for range 10 {
		if got := p.retryAfter(t0, 0, 1); got != maxRetryAfter {
			t.Fatalf("Retry-After %d past the slots, want %d", got, maxRetryAfter)
		}
	}
	if !p.next.Equal(next) {
		t.Errorf("slots past the longest wait were given: next %v, was %v", p.next, next)
	}
	// Once time has passed, the slots start a second after the refusal.
	if got := p.retryAfter(t0.Add(2*time.Minute), 0, 1); got != 1 {
		t.Errorf("after the slots have passed: Retry-After %d, want 1", got)
	}
}
