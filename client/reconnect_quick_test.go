// This file tests the short retries after refused connections: a router
// that restarts is retried every few tens of milliseconds during the first
// second of the outage, then at the seed's cadence, and every subscription
// and registration is restored at its return.

package client_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// TestRefusedConnectionsAreRetriedSoon takes the router down under a client
// holding 1000 subscriptions and 100 device functions, checks the delays
// the supervisor chose after each refused connection (20 ms doubling to
// 160 ms while the first second lasts, then the seed's cadence), brings
// the router back and checks that everything was restored.
func TestRefusedConnectionsAreRetriedSoon(t *testing.T) {
	f := newFleet(t)
	logs := &logCapture{}
	st := newStates()
	c := connect(t, f.a, client.WithLogger(slog.New(logs)), client.WithReconnectBackoff(time.Second, 2*time.Second), st.option())
	ctx := ctxT(t)
	const subs, regs = 1000, 100
	for i := range subs {
		if _, err := c.Subscribe(ctx, fmt.Sprintf("com.example.t%d", i), func(context.Context, *client.Event) {}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range regs {
		if _, err := c.RegisterDeviceFunction(ctx, fmt.Sprintf("f%d", i), func(context.Context, *client.Invocation) (any, error) { return i, nil }); err != nil {
			t.Fatal(err)
		}
	}

	st.await(t, client.StateConnected, 30*time.Second) // the first connection's
	f.p.Down()
	f.p.ClearRecorded()
	st.await(t, client.StateReconnecting, 30*time.Second)
	// The quick delays of a 1 s budget, then the seed's first delay.
	wantQuick := []time.Duration{20, 40, 80, 160, 160, 160, 160, 160, 60}
	var refused []logEntry
	eventually(t, 30*time.Second, "ten refused attempts logged", func() bool {
		refused = refusedAttempts(logs)
		return len(refused) > len(wantQuick)
	})
	for i, e := range refused[:len(wantQuick)+1] {
		got := e.attrs["retry_in"].Duration()
		if i < len(wantQuick) {
			if want := wantQuick[i] * time.Millisecond; got != want {
				t.Errorf("refused attempt %d: retry in %v, want %v", i+1, got, want)
			}
		} else if got < 900*time.Millisecond || got > 2*time.Second {
			// 1 s, or 1.5 s when the lost session was young enough to be
			// followed by the backoff rather than an immediate attempt.
			t.Errorf("refused attempt %d, after the first second: retry in %v, want the seed's cadence (1 s to 2 s)", i+1, got)
		}
	}

	if err := f.p.Up(); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	st.await(t, client.StateConnected, 30*time.Second)
	t.Logf("connected again %v after the router's return, %d subscriptions and %d registrations restored", time.Since(up).Round(time.Millisecond), subs, regs)
	restored := map[platformtest.Kind]int{}
	for _, m := range f.p.Recorded() {
		restored[m.Kind]++
	}
	if restored[platformtest.KindSubscribe] != subs || restored[platformtest.KindRegister] != regs {
		t.Errorf("restored %d subscriptions and %d registrations, want %d and %d", restored[platformtest.KindSubscribe], restored[platformtest.KindRegister], subs, regs)
	}
	other := connect(t, f.b)
	res, err := other.CallDeviceFunction(ctx, f.a.Device().Key(), "f99")
	if err != nil {
		t.Fatalf("calling a restored device function: %v", err)
	}
	if n, _ := res.Args[0].(int64); n != 99 {
		t.Errorf("f99 answered %v", res.Args)
	}
}

// TestJoinRefusalsKeepTheSeedCadence checks that a router that answers but
// refuses the join (here: the realm does not exist yet) is not retried at
// the short cadence: the short retries are for refused connections only.
func TestJoinRefusalsKeepTheSeedCadence(t *testing.T) {
	f := newFleet(t)
	f.p.WithholdRealm(f.a.Realm())
	logs := &logCapture{}
	c := newClient(t, f.a.Env(), client.WithLogger(slog.New(logs)), client.WithReconnectBackoff(200*time.Millisecond, 300*time.Millisecond))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started := make(chan error, 1)
	go func() { started <- c.Start(ctx) }()
	logs.await(t, "connection attempt failed", 2)
	for _, e := range logs.with("connection attempt failed")[:2] {
		if !strings.Contains(e.attrs["error"].String(), "no_such_realm") {
			t.Fatalf("attempt failed with %v, want no_such_realm", e.attrs["error"])
		}
		if d := e.attrs["retry_in"].Duration(); d < 180*time.Millisecond {
			t.Errorf("a refused join is retried in %v, want the backoff (200 ms ±10 %% or more)", d)
		}
	}
	f.p.ReleaseRealm(f.a.Realm())
	if err := <-started; err != nil {
		t.Fatal(err)
	}
}

// refusedAttempts returns the logged failed attempts whose connection was
// refused, in order.
func refusedAttempts(logs *logCapture) []logEntry {
	var out []logEntry
	for _, e := range logs.with("connection attempt failed") {
		if strings.Contains(e.attrs["error"].String(), "refused") {
			out = append(out, e)
		}
	}
	return out
}
