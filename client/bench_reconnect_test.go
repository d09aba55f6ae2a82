// This file holds the benchmark of a reconnect after a router restart with
// 1000 subscriptions and 100 registrations to restore.

package client_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
)

// BenchmarkReconnectAfterRestart measures, per router restart, the time
// from the router's return to the client's next StateConnected (every
// subscription and registration restored), with 1000 subscriptions and 100
// device functions and the default reconnect cadence. The router goes down
// once the session has lived past the reconnect backoff's cap (so the loss
// is followed by an immediate attempt, as in the field), stays down until
// that attempt was refused, and comes back: the metric ms-to-connected is
// what a device pays for a router restart. The setup sleeps are outside
// the timer.
func BenchmarkReconnectAfterRestart(b *testing.B) {
	p, inst, _ := benchFleet(b)
	states := make(chan client.State, 64)
	attempts := make(chan error, 64)
	c := benchClient(b, inst, client.WithReconnectBackoff(client.DefaultReconnectInitial, client.DefaultReconnectMax),
		client.WithStateHandler(func(s client.State) { states <- s }),
		client.WithAttemptHandler(func(err error) { attempts <- err }))
	ctx := context.Background()
	for i := range 1000 {
		if _, err := c.Subscribe(ctx, fmt.Sprintf("com.example.t%d", i), func(context.Context, *client.Event) {}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 100 {
		if _, err := c.RegisterDeviceFunction(ctx, fmt.Sprintf("f%d", i), func(context.Context, *client.Invocation) (any, error) { return nil, nil }); err != nil {
			b.Fatal(err)
		}
	}
	awaitState := func(want client.State) {
		for s := range states {
			if s == want {
				return
			}
		}
	}
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		time.Sleep(client.DefaultReconnectMax + 100*time.Millisecond)
		for len(attempts) > 0 {
			<-attempts
		}
		p.Down()
		awaitState(client.StateReconnecting)
		if err := <-attempts; err == nil {
			b.Fatal("an attempt joined while the router was down")
		}
		b.StartTimer()
		if err := p.Up(); err != nil {
			b.Fatal(err)
		}
		up := time.Now()
		awaitState(client.StateConnected)
		total += time.Since(up)
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-connected")
}
