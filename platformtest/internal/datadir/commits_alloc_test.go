//go:build !race

package datadir

import "testing"

// TestSlotAllocations pins that a commit's slot is encoded into the
// buffer it reuses (the race detector's instrumentation allocates: the
// pin runs without it, in .ci/run).
func TestSlotAllocations(t *testing.T) {
	buf := make([]byte, 0, slotSize)
	txids := map[string]uint64{"files.db": 17, "fleet.db": 1302, "registry.db": 88}
	if n := testing.AllocsPerRun(100, func() { buf, _ = appendSlot(buf[:0], 7, txids) }); n != 0 {
		t.Errorf("a commit's slot: %v allocations, want 0", n)
	}
}
