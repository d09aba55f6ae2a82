package clienttest_test

import (
	"context"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// TestStartAndStop: Start gives a joined client; the cleanup stops it and
// leaves no goroutine behind.
func TestStartAndStop(t *testing.T) {
	leakcheck.Check(t)
	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("sensor-1"), p.AddApp("my-app", ""), platformtest.Dev)
	var c *client.Client
	t.Run("inner", func(t *testing.T) {
		c = clienttest.Start(t, inst)
		if !c.IsConnected() {
			t.Fatal("Start returned a client that is not connected")
		}
		if s := p.Sessions(); len(s) != 1 || s[0].Realm != inst.Realm() || s[0].Serial != inst.Device().Serial() {
			t.Fatalf("sessions %+v", s)
		}
	})
	// The inner test's cleanup has stopped the client.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Publish(ctx, "com.example.after", nil); err == nil {
		t.Error("publish after the test's cleanup succeeded; the client was not stopped")
	}
}

// TestNewDoesNotStart: New returns a client that has not joined.
func TestNewDoesNotStart(t *testing.T) {
	p := platformtest.New(t)
	inst := p.Install(p.AddDevice("d"), p.AddApp("a", ""), platformtest.Dev)
	c := clienttest.New(t, inst)
	if c.IsConnected() || len(p.Sessions()) != 0 {
		t.Fatal("New started the client")
	}
}
