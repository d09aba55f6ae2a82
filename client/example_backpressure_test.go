// This file holds the runnable examples of the bounds on slow handlers.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
)

// A subscription whose handler falls behind keeps its newest events: once
// its queue holds QueueLimit events, the oldest is dropped for each new one
// and counted.
func ExampleQueueLimit() {
	display, sensor, stop := examplePair()
	defer stop()
	ctx := context.Background()

	busy, release, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	var seen []any
	sub, err := display.Subscribe(ctx, "com.example.temperature", func(_ context.Context, ev *client.Event) {
		if len(seen) == 0 {
			close(busy)
			<-release // a handler far slower than the sensor
		}
		seen = append(seen, ev.Args[0])
		if ev.Args[0] == int64(10) {
			close(done)
		}
	}, client.QueueLimit(3))
	if err != nil {
		fmt.Println(err)
		return
	}
	sensor.Publish(ctx, "com.example.temperature", 0)
	<-busy
	for i := 1; i <= 10; i++ {
		sensor.Publish(ctx, "com.example.temperature", i)
	}
	for sub.Dropped() < 7 { // until the last event has arrived
		time.Sleep(time.Millisecond)
	}
	close(release)
	<-done
	fmt.Println("handled:", seen, "dropped:", sub.Dropped())
	// Output: handled: [0 8 9 10] dropped: 7
}

// A device function answers wamp.error.unavailable once InvocationLimit
// invocations are running, instead of piling up goroutines.
func ExampleInvocationLimit() {
	pump, controller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	running, release := make(chan struct{}), make(chan struct{})
	_, err := pump.RegisterDeviceFunction(ctx, "prime", func(ctx context.Context, inv *client.Invocation) (any, error) {
		close(running)
		<-release // priming takes a while
		return "primed", nil
	}, client.InvocationLimit(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	first := make(chan any)
	go func() {
		res, _ := controller.CallDeviceFunction(ctx, pump.Identity().DeviceKey, "prime")
		first <- res.Args[0]
	}()
	<-running
	_, err = controller.CallDeviceFunction(ctx, pump.Identity().DeviceKey, "prime")
	var we *client.WampError
	fmt.Println(errors.As(err, &we) && we.URI == "wamp.error.unavailable")
	close(release)
	fmt.Println(<-first)
	// Output:
	// true
	// primed
}
