package main

import "testing"

// TestGCPolicy: under a burst's allocation (the profile of issue 37's:
// about 200 MB/s over a 500 MB live heap) flocksim's collector is spaced
// out, up to GOGC 400; an idle simulator keeps Go's default.
func TestGCPolicy(t *testing.T) {
	p := gcPolicy()
	if got := p.Percent(200e6, 500e6); got <= 100 || got > 400 {
		t.Errorf("GOGC under a burst: %d, want 101–400", got)
	}
	if got := p.Percent(1e5, 500e6); got != 100 {
		t.Errorf("GOGC idle: %d, want 100", got)
	}
}
