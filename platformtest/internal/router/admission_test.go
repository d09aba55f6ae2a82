package router

import (
	"context"
	"runtime"
	"testing"
	"time"
)

// lineReaches waits until n links wait in a's line.
func lineReaches(t *testing.T, a *admission, n int) {
	t.Helper()
	for _, waiting := a.counts(); waiting != n; _, waiting = a.counts() {
		if t.Context().Err() != nil {
			t.Fatalf("the line never reached %d links", n)
		}
		runtime.Gosched()
	}
}

// TestAdmissionLine: over the places a link waits in line and takes the
// first place freed, in the order the links came; a full line, a wait
// that ends and a link that leaves the line are refused; a freed place no
// one waits for goes back to the pool.
func TestAdmissionLine(t *testing.T) {
	var a admission
	ctx := t.Context()
	const places, line = 2, 2
	for i := range places {
		if !a.enter(ctx, places, line, time.Hour) {
			t.Fatalf("link %d refused under the cap", i+1)
		}
	}
	first, second := make(chan bool, 1), make(chan bool, 1)
	go func() { first <- a.enter(ctx, places, line, time.Hour) }()
	lineReaches(t, &a, 1)
	leaving, leave := context.WithCancel(ctx)
	go func() { second <- a.enter(leaving, places, line, time.Hour) }()
	lineReaches(t, &a, 2)
	if a.enter(ctx, places, line, time.Hour) {
		t.Fatal("a link passed a full line")
	}
	a.leave()
	if !<-first {
		t.Fatal("the first in line was refused the freed place")
	}
	if held, waiting := a.counts(); waiting != 1 || held != places {
		t.Fatalf("after the handover: %d waiting, %d held; want 1 and %d", waiting, held, places)
	}
	leave()
	if <-second {
		t.Fatal("a link that left the line was given a place")
	}
	if _, waiting := a.counts(); waiting != 0 {
		t.Fatalf("%d still waiting after the last left", waiting)
	}
	if a.enter(ctx, places, line, time.Millisecond) {
		t.Fatal("a link got a place when its wait ended and none was freed")
	}
	if a.enter(ctx, places, -1, time.Hour) || a.enter(ctx, places, line, 0) {
		t.Fatal("a link waited with no line")
	}
	a.leave()
	a.leave()
	if held, _ := a.counts(); held != 0 || !a.enter(ctx, places, line, 0) {
		t.Fatalf("after every place was given back: %d held, and a new link refused", held)
	}
}
