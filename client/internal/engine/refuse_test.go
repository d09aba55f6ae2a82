// This file tests the refusal of an invocation at a procedure's limit and
// the reading of an invocation's details.

package engine

import (
	"context"
	"math"
	"sync/atomic"
	"testing"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// TestRefusalReportedBeforeItIsSent checks that OnRefuse has run by the
// time the router has the refusal: a caller that acts on it at once (a
// test reading the owner's log, as client's did, failing about one run in
// ten) finds it counted and reported.
func TestRefusalReportedBeforeItIsSent(t *testing.T) {
	leakcheck.Check(t)
	var reported atomic.Uint64
	refusals := make(chan uint64, 4) // OnRefuse's latest count when the router had each refusal
	url := scriptedRouter(t, func(send func(wamp.Message), msg wamp.Message) {
		switch m := msg.(type) {
		case *wamp.Register:
			send(&wamp.Registered{Request: m.Request, Registration: 9})
			// One invocation held by the handler, then three refused.
			for req := range wamp.ID(4) {
				send(&wamp.Invocation{Request: 100 + req, Registration: 9, Details: wamp.Dict{}})
			}
		case *wamp.Error:
			if m.Error != "wamp.error.unavailable" {
				t.Errorf("refusal %s, want wamp.error.unavailable", m.Error)
			}
			refusals <- reported.Load()
		}
	})
	s := connectTo(t, url)
	release := make(chan struct{})
	defer close(release)
	proc := &Procedure{URI: "com.example.p", Options: map[string]any{}, Limit: 1,
		OnRefuse: func(n uint64) { reported.Store(n) },
		Handler: func(ctx context.Context, _ Invocation) (Payload, error) {
			select {
			case <-release:
			case <-ctx.Done():
			}
			return Payload{}, nil
		}}
	if err := s.Register(context.Background(), proc); err != nil {
		t.Fatal(err)
	}
	for want := uint64(1); want <= 3; want++ {
		if got := <-refusals; got < want {
			t.Fatalf("refusal %d reached the router with OnRefuse told of %d only", want, got)
		}
	}
	if n := proc.Refused(); n != 3 {
		t.Errorf("Refused = %d, want 3", n)
	}
}

// TestDetailInt reads whole numbers of details as integers or whole
// floats (a router in JavaScript sends 5000 as a float at times).
func TestDetailInt(t *testing.T) {
	for _, c := range []struct {
		v    any
		want int64
		ok   bool
	}{
		{int64(5000), 5000, true}, {5000.0, 5000, true}, {-1.0, -1, true},
		{1.5, 0, false}, {math.Inf(1), 0, false}, {math.NaN(), 0, false}, {9.3e18, 0, false},
		{"5000", 0, false}, {nil, 0, false}, {uint64(math.MaxUint64), 0, false},
	} {
		if got, ok := detailInt(c.v); got != c.want || ok != c.ok {
			t.Errorf("detailInt(%v) = %d, %v; want %d, %v", c.v, got, ok, c.want, c.ok)
		}
	}
}
