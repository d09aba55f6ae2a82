package workpool

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestDoKeepsItsWorker: functions run one after the other reuse the
// worker the first started, instead of a goroutine each.
func TestDoKeepsItsWorker(t *testing.T) {
	p := New(time.Minute)
	defer p.Close()
	const n = 1000
	ran := 0
	for range n {
		p.Do(func() { ran++ })
	}
	if ran != n {
		t.Fatalf("ran %d functions of %d", ran, n)
	}
	// A function handed over while the worker is still between two may
	// start another; most must find it waiting.
	if s := p.started.Load(); s < 1 || s > n/4 {
		t.Errorf("%d functions in turn started %d workers, want 1 to %d", n, s, n/4)
	}
}

// TestGoRunsAllAtOnce: the pool queues nothing and bounds nothing: 64
// functions that each wait for all the others all run together.
func TestGoRunsAllAtOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := New(time.Minute)
	defer p.Close()
	const n = 64
	var arrived sync.WaitGroup
	arrived.Add(n)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }()
	var done sync.WaitGroup
	done.Add(n)
	for range n {
		p.Go(func() {
			defer done.Done()
			arrived.Done()
			select {
			case <-all:
			case <-ctx.Done():
			}
		})
	}
	select {
	case <-all:
	case <-ctx.Done():
		t.Fatal("the functions never ran all at once")
	}
	done.Wait()
	if s := p.started.Load(); s != n {
		t.Errorf("%d functions running together started %d workers, want %d", n, s, n)
	}
}

// TestIdleWorkersEnd: a worker with nothing to do ends after the idle
// time.
func TestIdleWorkersEnd(t *testing.T) {
	p := New(time.Millisecond)
	defer p.Close()
	p.Do(func() {})
	p.Go(func() {})
	for p.running.Load() > 0 {
		// The workers end by themselves; the test's deadline bounds it.
		time.Sleep(time.Millisecond)
	}
}

// TestClose: Close waits for the workers, including one still running a
// function; afterwards Do runs on the caller and Go on a goroutine.
func TestClose(t *testing.T) {
	p := New(time.Minute)
	release := make(chan struct{})
	started := make(chan struct{})
	p.Go(func() { close(started); <-release })
	<-started
	closed := make(chan struct{})
	go func() { p.Close(); close(closed) }()
	select {
	case <-closed:
		t.Fatal("Close returned while a function still ran")
	case release <- struct{}{}:
	}
	<-closed
	if r := p.running.Load(); r != 0 {
		t.Fatalf("%d workers alive after Close", r)
	}
	ran := false
	p.Do(func() { ran = true })
	if !ran {
		t.Error("Do after Close did not run its function")
	}
	goRan := make(chan struct{})
	p.Go(func() { close(goRan) })
	<-goRan
	if s := p.started.Load(); s != 1 {
		t.Errorf("after Close the pool started workers: %d in all", s)
	}
	p.Close() // again: nothing to do
}
