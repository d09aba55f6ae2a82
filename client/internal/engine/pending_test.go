package engine

import "testing"

// TestPendingTable checks the slot and the map behind it: every request is
// found under its id until removed, wherever it went.
func TestPendingTable(t *testing.T) {
	var tab pendingTable
	reqs := map[uint64]*request{}
	check := func(step string) {
		t.Helper()
		for id, want := range reqs {
			if got := tab.get(id); got != want {
				t.Fatalf("%s: get(%d) = %p, want %p", step, id, got, want)
			}
		}
		if got := tab.get(999); got != nil {
			t.Fatalf("%s: get of an unknown id = %p", step, got)
		}
	}
	for id := uint64(1); id <= 3; id++ {
		reqs[id] = &request{}
		tab.put(id, reqs[id])
	}
	check("three put")
	tab.remove(1) // the slot's
	delete(reqs, 1)
	check("the first removed")
	reqs[4] = &request{}
	tab.put(4, reqs[4]) // takes the free slot
	check("a fourth put")
	tab.remove(3) // the map's
	delete(reqs, 3)
	tab.remove(3) // twice is harmless
	tab.remove(999)
	check("the third removed")
	for id := range reqs {
		tab.remove(id)
	}
	reqs = map[uint64]*request{}
	check("all removed")
	if tab.req != nil || len(tab.more) != 0 {
		t.Fatalf("an emptied table holds %p and %d more", tab.req, len(tab.more))
	}
}
