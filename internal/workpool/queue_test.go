package workpool

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
)

// TestQueueBounds checks that a Queue runs at most its workers' number of
// functions at a time, queues up to its bound, refuses the rest, and on
// Close runs what is queued and refuses later functions.
func TestQueueBounds(t *testing.T) {
	const workers, queued = 3, 4
	q := NewQueue(workers, queued)
	release := make(chan struct{})
	started := make(chan struct{}, workers)
	var running, most, ran atomic.Int64
	job := func() {
		n := running.Add(1)
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		started <- struct{}{}
		<-release
		running.Add(-1)
		ran.Add(1)
	}
	for range workers {
		if !q.TryGo(job) {
			t.Fatal("TryGo refused a function with idle workers")
		}
	}
	for range workers {
		<-started // every worker holds one
	}
	for i := range queued {
		if !q.TryGo(job) {
			t.Fatalf("TryGo refused queued function %d of %d", i+1, queued)
		}
	}
	if q.TryGo(job) {
		t.Fatal("TryGo accepted a function over the bound")
	}
	go func() {
		for range workers + queued - workers {
			<-started
		}
	}()
	close(release)
	q.Close()
	if got := ran.Load(); got != workers+queued {
		t.Errorf("Close returned after %d functions ran, want %d", got, workers+queued)
	}
	if got := most.Load(); got > workers {
		t.Errorf("%d functions ran at once, at most %d workers", got, workers)
	}
	if q.TryGo(func() {}) {
		t.Error("TryGo accepted a function after Close")
	}
	q.Close() // harmless twice
}

// TestQueueConcurrent runs functions from many goroutines, as links hand
// their calls over, under the race detector.
func TestQueueConcurrent(t *testing.T) {
	q := NewQueue(4, 64)
	var wg sync.WaitGroup
	var ran, elsewhere atomic.Int64
	for range 8 {
		wg.Go(func() {
			for range 500 {
				var done sync.WaitGroup
				done.Add(1)
				f := func() { ran.Add(1); done.Done() }
				if !q.TryGo(f) {
					elsewhere.Add(1)
					f()
				}
				done.Wait()
			}
		})
	}
	wg.Wait()
	q.Close()
	if got := ran.Load(); got != 8*500 {
		t.Errorf("%d functions ran, want %d (%d ran elsewhere)", got, 8*500, elsewhere.Load())
	}
}

// A Queue keeps the goroutines that run work few; a function it has no
// room for is the caller's to run.
func ExampleQueue() {
	q := NewQueue(2, 16)
	defer q.Close()
	var wg sync.WaitGroup
	results := make([]int, 5)
	for i := range results {
		wg.Add(1)
		f := func() { defer wg.Done(); results[i] = i * i }
		if !q.TryGo(f) {
			f()
		}
	}
	wg.Wait()
	fmt.Println(results)
	// Output: [0 1 4 9 16]
}
