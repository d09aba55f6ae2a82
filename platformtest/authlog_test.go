package platformtest

import (
	"fmt"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
)

// TestAuthLogBounded: the authentication log keeps the newest attempts
// within its bound and counts the ones it let go.
func TestAuthLogBounded(t *testing.T) {
	p := New(t, WithAuthLogLimit(5))
	d := p.AddDevice("d")
	in := p.Install(d, p.AddApp("a", ""), Dev)
	for i := range 12 {
		if _, err := worldtest.Dial(t, p.URL(), worldtest.DialConfig(in.Realm(), fmt.Sprintf("stranger-%02d", i), "x", client.MSGPACK)); err == nil {
			t.Fatal("a stranger joined")
		}
	}
	log := p.AuthLog()
	if len(log) != 5 {
		t.Fatalf("the log holds %d attempts, want 5", len(log))
	}
	for i, at := range log {
		if want := fmt.Sprintf("stranger-%02d", 7+i); at.AuthID != want || at.Admitted {
			t.Errorf("attempt %d: %+v, want %s refused", i, at, want)
		}
	}
	if n := p.rt.AuthLogDropped(); n != 7 {
		t.Errorf("dropped %d, want 7", n)
	}
	if p := New(t); p.rt.AuthLogLimit() != DefaultAuthLogLimit {
		t.Errorf("default bound %d", p.rt.AuthLogLimit())
	}
}
