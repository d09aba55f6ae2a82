// Package clienttest gives a test a client of the SDK already wired to an
// installation of the fake platform, in one line:
//
//	p := platformtest.New(t)
//	inst := p.Install(p.AddDevice("sensor-1"), p.AddApp("my-app", ""), platformtest.Dev)
//	c := clienttest.Start(t, inst) // started; stopped when the test ends
//
// It lives apart from both packages it joins: platformtest never imports
// client (client's own tests use platformtest), and client never imports
// platformtest.
package clienttest

import (
	"context"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// StartTimeout bounds Start and the Stop at cleanup.
const StartTimeout = 10 * time.Second

// New returns a client with the environment of inst (inst.Env(): serial,
// keys, endpoint URL and per-app credential) and opts, not started. Stop
// runs at the end of the test; an error from it fails the test.
func New(tb testing.TB, inst *platformtest.Installation, opts ...client.Option) *client.Client {
	tb.Helper()
	c, err := client.New(append([]client.Option{client.WithEnv(inst.Env())}, opts...)...)
	if err != nil {
		tb.Fatalf("clienttest: new client for %s: %v", inst.Realm(), err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
		defer cancel()
		if err := c.Stop(ctx); err != nil {
			tb.Errorf("clienttest: stop client of %s: %v", inst.Realm(), err)
		}
	})
	return c
}

// Start returns a client for inst like New, started: it has joined the
// installation's realm. The test fails when it cannot start within
// StartTimeout.
func Start(tb testing.TB, inst *platformtest.Installation, opts ...client.Option) *client.Client {
	tb.Helper()
	c := New(tb, inst, opts...)
	ctx, cancel := context.WithTimeout(context.Background(), StartTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		tb.Fatalf("clienttest: start client of %s: %v", inst.Realm(), err)
	}
	return c
}
