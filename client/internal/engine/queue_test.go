// This file tests Queue: order, one call at a time, Stop and Close.

package engine

import (
	"context"
	"slices"
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

// TestBoundedQueueDropsOldest holds the handler on the first value, fills
// the queue past its limit and checks that the oldest waiting values were
// dropped, counted and reported, and the newest handled in order.
func TestBoundedQueueDropsOldest(t *testing.T) {
	first := make(chan struct{})
	release := make(chan struct{})
	var got []int
	var reports []uint64
	q := NewBoundedQueue(context.Background(), 4, func(d uint64) { reports = append(reports, d) }, func(_ context.Context, v int) {
		if v == 0 {
			close(first)
			<-release
		}
		got = append(got, v)
	})
	q.Put(0)
	<-first
	for i := 1; i <= 10; i++ {
		q.Put(i)
	}
	if n := q.Len(); n != 4 {
		t.Errorf("Len = %d while the handler is held, want the limit 4", n)
	}
	if d := q.Dropped(); d != 6 {
		t.Errorf("Dropped = %d, want 6", d)
	}
	if want := []uint64{1, 2, 3, 4, 5, 6}; !slices.Equal(reports, want) {
		t.Errorf("drop reports %v, want %v", reports, want)
	}
	close(release)
	q.Close()
	<-q.Done()
	if want := []int{0, 7, 8, 9, 10}; !slices.Equal(got, want) {
		t.Errorf("handled %v, want %v", got, want)
	}
}
