// This file tests the reader role after a burst of requests: while callers
// lead back to back the session's goroutine looks only every busyChecks
// grace periods, and an event arriving after the burst, with nobody
// waiting, is still read.

package engine

import (
	"context"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

func TestEventReadAfterABurstOfRequests(t *testing.T) {
	leakcheck.Check(t)
	p, a, b := platformPair(t)
	config := func(in *platformtest.Installation) Config {
		cfg := installationConfig(in, p.URL())
		cfg.idleGrace = time.Millisecond // a busy look every 10 ms
		return cfg
	}
	sa, sb := connectWith(t, config(a)), connectWith(t, config(b))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	events := make(chan Event, 16)
	if err := sb.Subscribe(ctx, &Topic{URI: "com.example.busy", Deliver: func(e Event) { events <- e }}); err != nil {
		t.Fatal(err)
	}
	// b leads back to back for several busy looks (the duration only
	// makes the looks likely; nothing below depends on it).
	for start := time.Now(); time.Since(start) < 100*time.Millisecond; {
		if err := sb.Publish(ctx, "com.example.other", nil, nil); err != nil {
			t.Fatal(err)
		}
	}
	// Now nobody waits on b: its goroutine must take the role and read.
	for i := range 3 {
		if err := sa.Publish(ctx, "com.example.busy", []any{int64(i)}, nil); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-events:
			if e.Args[0] != int64(i) {
				t.Fatalf("event %v, want %d", e.Args, i)
			}
		case <-ctx.Done():
			t.Fatalf("event %d not read with nobody waiting after a burst", i)
		}
	}
}
