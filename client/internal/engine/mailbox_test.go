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
	if mb.put(8) {
		t.Error("put after close accepted")
	}
	if v, ok := mb.take(); !ok || v != 7 {
		t.Errorf("item queued before close: %d %v", v, ok)
	}
	if !mb.isClosed() {
		t.Error("not closed")
	}
}
