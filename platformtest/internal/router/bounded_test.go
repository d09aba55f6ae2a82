package router

import (
	"slices"
	"testing"
)

// TestBounded keeps the newest entries within its limit, at every step.
func TestBounded(t *testing.T) {
	b := bounded[int]{limit: 10}
	for i := range 57 {
		b.add(i)
		want := []int{}
		for k := max(0, i-9); k <= i; k++ {
			want = append(want, k)
		}
		if !slices.Equal(b.all(), want) {
			t.Fatalf("after %d: %v, want %v", i, b.all(), want)
		}
		if lost := b.lost(); lost != int64(max(0, i+1-10)) {
			t.Fatalf("after %d: lost %d", i, lost)
		}
		if cap(b.items) > 40 {
			t.Fatalf("after %d: capacity %d grows without bound", i, cap(b.items))
		}
	}
}
