package router

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestTapBounded checks that a watcher that does not read loses messages
// instead of blocking the sender, and counts them.
func TestTapBounded(t *testing.T) {
	rt := New(Config{})
	if rt.watched() {
		t.Fatal("watched before anybody watches")
	}
	slow := rt.Watch(2)
	fast := rt.Watch(10)
	for n := range 5 {
		rt.emit(Traffic{Kind: KindPublish, URI: "t", Request: uint64(n)})
	}
	if got := slow.Dropped(); got != 3 {
		t.Errorf("slow watcher dropped %d, want 3", got)
	}
	if got := fast.Dropped(); got != 0 {
		t.Errorf("fast watcher dropped %d, want 0", got)
	}
	var seqs []uint64
	for range 5 {
		seqs = append(seqs, (<-fast.C()).Seq)
	}
	if diff := cmp.Diff([]uint64{1, 2, 3, 4, 5}, seqs); diff != "" {
		t.Errorf("sequence (-want +got):\n%s", diff)
	}
	slow.Close()
	slow.Close()         // idempotent
	for range slow.C() { // ends once closed
	}
	rt.closeTaps()
	if rt.watched() {
		t.Error("watched after every tap closed")
	}
	for range fast.C() {
	}
	rt.mu.Lock()
	rt.closed = true
	rt.mu.Unlock()
	if _, ok := <-rt.Watch(1).C(); ok {
		t.Error("a tap of a closed router delivers")
	}
}

// BenchmarkTap measures what the tap costs a message: with nobody
// watching (the baseline: one atomic load) and with one watcher whose
// buffer is kept drained.
func BenchmarkTap(b *testing.B) {
	msg := Traffic{Kind: KindPublish, URI: "com.example.t", Args: []any{1.5, "x"}}
	b.Run("unwatched", func(b *testing.B) {
		rt := New(Config{})
		for b.Loop() {
			if rt.watched() {
				rt.emit(msg)
			}
		}
	})
	b.Run("watched", func(b *testing.B) {
		rt := New(Config{})
		tap := rt.Watch(1024)
		done := make(chan struct{})
		go func() {
			defer close(done)
			for range tap.C() {
			}
		}()
		for b.Loop() {
			if rt.watched() {
				rt.emit(msg)
			}
		}
		tap.Close()
		<-done
	})
}
