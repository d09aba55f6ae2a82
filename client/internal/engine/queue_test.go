// This file tests Queue: order, one call at a time, Stop and Close.

package engine

import (
	"context"
	"testing"
)

func TestQueueOrderAndClose(t *testing.T) {
	got := make(chan int, 100)
	q := NewQueue(context.Background(), func(_ context.Context, v int) { got <- v })
	for i := range 100 {
		q.Put(i)
	}
	q.Close()
	if q.Put(100) {
		t.Error("Put after Close accepted")
	}
	<-q.Done()
	close(got)
	next := 0
	for v := range got {
		if v != next {
			t.Fatalf("handled %d, want %d", v, next)
		}
		next++
	}
	if next != 100 {
		t.Fatalf("Close dropped values: %d of 100 handled", next)
	}
}

func TestQueueStopStartsNoCall(t *testing.T) {
	running := make(chan struct{})
	release := make(chan struct{})
	calls := 0
	var handlerCtx context.Context
	q := NewQueue(context.Background(), func(ctx context.Context, v int) {
		calls++
		if v == 0 {
			handlerCtx = ctx
			close(running)
			<-release
		}
	})
	q.Put(0)
	<-running
	q.Put(1)
	q.Put(2)
	q.Stop()
	if handlerCtx.Err() == nil {
		t.Error("the running handler's context did not end at Stop")
	}
	close(release)
	<-q.Done()
	if calls != 1 {
		t.Errorf("%d handler calls, want only the one running at Stop", calls)
	}
}

func TestQueueEndsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	q := NewQueue(ctx, func(context.Context, int) {})
	cancel()
	<-q.Done()
}
