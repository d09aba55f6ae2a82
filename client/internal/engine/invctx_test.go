// This file tests invocationCtx as a context.Context: it ends as a
// context.WithCancel or WithTimeout would, its Done channel made on
// demand, and contexts derived from it end with it.

package engine

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestInvocationCtxEnds(t *testing.T) {
	leakcheck.Check(t)
	c := newInvocationCtx(0, false)
	if _, ok := c.Deadline(); ok {
		t.Error("a deadline without a timeout")
	}
	if c.Err() != nil {
		t.Fatalf("Err = %v before the end", c.Err())
	}
	done := c.Done()
	c.end(context.Canceled)
	select {
	case <-done:
	default:
		t.Fatal("Done not closed at the end")
	}
	c.end(context.DeadlineExceeded) // the first end wins
	if !errors.Is(c.Err(), context.Canceled) || c.wasInterrupted() {
		t.Errorf("Err = %v, interrupted %v; want Canceled, not interrupted", c.Err(), c.wasInterrupted())
	}
	// Asked for after the end: closed already.
	late := newInvocationCtx(0, true)
	select {
	case <-late.Done():
	default:
		t.Error("the Done of a context that started ended is open")
	}
	in := newInvocationCtx(0, false)
	in.interrupt()
	if !in.wasInterrupted() || !errors.Is(in.Err(), context.Canceled) {
		t.Errorf("interrupt: Err = %v, interrupted %v", in.Err(), in.wasInterrupted())
	}
}

func TestInvocationCtxDeadline(t *testing.T) {
	leakcheck.Check(t)
	// Err sees a deadline passed without a timer (nobody asked for Done).
	c := newInvocationCtx(1, false)
	d, ok := c.Deadline()
	if !ok {
		t.Fatal("no deadline with a timeout")
	}
	time.Sleep(time.Until(d) + time.Millisecond) // the deadline itself is what is tested
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err = %v after the deadline, want DeadlineExceeded", c.Err())
	}
	select {
	case <-c.Done():
	default:
		t.Error("Done open after Err reported the deadline")
	}
	// Done asked for first: its timer ends the context.
	c = newInvocationCtx(5, false)
	<-c.Done()
	if !errors.Is(c.Err(), context.DeadlineExceeded) {
		t.Errorf("Err = %v, want DeadlineExceeded", c.Err())
	}
}

func TestInvocationCtxDerived(t *testing.T) {
	leakcheck.Check(t)
	c := newInvocationCtx(0, false)
	child, cancel := context.WithCancel(c)
	defer cancel()
	timed, cancelTimed := context.WithTimeout(c, time.Hour)
	defer cancelTimed()
	stopped := context.AfterFunc(c, func() { t.Error("a stopped AfterFunc ran") })
	if !stopped() {
		t.Error("stop did not stop the AfterFunc")
	}
	ran := make(chan struct{})
	context.AfterFunc(c, func() { close(ran) })
	c.end(context.Canceled)
	<-child.Done()
	<-timed.Done()
	<-ran
	if !errors.Is(child.Err(), context.Canceled) {
		t.Errorf("derived Err = %v", child.Err())
	}
	// On an ended context, AfterFunc runs at once.
	again := make(chan struct{})
	context.AfterFunc(c, func() { close(again) })
	<-again
}
