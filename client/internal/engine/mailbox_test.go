// This file tests the mailbox: order, compaction and close.

package engine

import "testing"

func TestMailboxOrder(t *testing.T) {
	mb := newMailbox[int]()
	next := 0
	take := func() {
		v, ok := mb.take()
		if !ok {
			t.Fatalf("mailbox empty, want %d", next)
		}
		if v != next {
			t.Fatalf("took %d, want %d", v, next)
		}
		next++
	}
	for i := range 5000 {
		mb.put(i)
		if i%3 == 0 {
			take()
		}
	}
	for next < 5000 {
		take()
	}
	if _, ok := mb.take(); ok {
		t.Fatal("mailbox not empty")
	}
	mb.put(7)
	mb.close()
	if ok, _ := mb.put(8); ok {
		t.Error("put after close accepted")
	}
	if v, ok := mb.take(); !ok || v != 7 {
		t.Errorf("item queued before close: %d %v", v, ok)
	}
	if !mb.isClosed() {
		t.Error("not closed")
	}
}

func TestBoundedMailboxDropsOldest(t *testing.T) {
	mb := newBoundedMailbox[int](3)
	evictions := 0
	for i := range 10 {
		ok, dropped := mb.put(i)
		if !ok {
			t.Fatalf("put %d refused", i)
		}
		if dropped > 0 {
			evictions++
			if dropped != uint64(evictions) {
				t.Fatalf("put %d reports %d dropped, want %d", i, dropped, evictions)
			}
		}
		if n := mb.len(); n > 3 {
			t.Fatalf("after put %d the mailbox holds %d items, limit 3", i, n)
		}
	}
	if evictions != 7 || mb.droppedCount() != 7 {
		t.Errorf("evictions reported %d, counted %d, want 7", evictions, mb.droppedCount())
	}
	for want := 7; want < 10; want++ {
		if v, ok := mb.take(); !ok || v != want {
			t.Fatalf("took %d %v, want the newest items in order (%d)", v, ok, want)
		}
	}
	if _, ok := mb.take(); ok {
		t.Fatal("mailbox not empty")
	}
}

// TestBoundedMailboxMemory checks that a full bounded mailbox that keeps
// dropping does not grow its backing array without bound.
func TestBoundedMailboxMemory(t *testing.T) {
	mb := newBoundedMailbox[int](10)
	for i := range 100000 {
		mb.put(i)
	}
	if c := cap(mb.items); c > 4*1024 {
		t.Errorf("backing array of %d slots for a limit of 10", c)
	}
	if mb.droppedCount() != 100000-10 {
		t.Errorf("dropped %d, want %d", mb.droppedCount(), 100000-10)
	}
}
