// This file holds the runnable examples of the connection: the live
// session, Run and Stop, lost connections, and what apps talking to other
// routers use (WithAuth, RegisterProcedure, NoMetadata), and a call that
// waits for its procedure's registration.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func ExampleClient_Session() {
	a, _, stop := examplePair()
	defer stop()
	if info, ok := a.Session(); ok {
		fmt.Println(info.Realm, info.AuthRole, info.AuthMethod)
	}
	// Output: realm-1-1-dev app wampcra
}

func ExampleClient_Run() {
	p, inst, _ := exampleFleet()
	defer p.Close()
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		fmt.Println(err)
		return
	}
	running := make(chan struct{})
	go func() {
		<-running
		c.Stop(context.Background()) // from anywhere: a handler, another goroutine
	}()
	err = c.Run(context.Background(), func(ctx context.Context) error {
		close(running)
		<-ctx.Done() // Stop cancels the main function's context
		fmt.Println("main ends:", context.Cause(ctx))
		return ctx.Err()
	})
	fmt.Println("Run:", err)
	// Output:
	// main ends: client stopped
	// Run: <nil>
}

func ExampleErrOutcomeUnknown() {
	c, p, stop := tableExample()
	defer stop()
	ctx := context.Background()
	// For the example, the platform holds the append and the connection
	// drops before the answer: the row may or may not have been stored.
	id := c.Identity()
	held := p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: fmt.Sprintf("append.%d.%d.doors", id.SwarmKey, id.AppKey), Hang: true})
	go func() {
		_ = held.Wait(ctx, 1)
		p.DropConnections()
		held.Cancel()
	}()

	row := map[string]any{"tsp": exampleStart, "door": "front", "open": true}
	_, err := c.AppendToTable(ctx, "doors", row)
	if errors.Is(err, client.ErrOutcomeUnknown) {
		fmt.Println("outcome unknown")
		// doors has an entity key (door): the same row sent again is
		// refused as a duplicate if the first one was stored, so a retry
		// is safe. Without an entity key, read the row back first.
		_, err = c.AppendToTable(ctx, "doors", row)
		if client.WampURI(err) == "sys.dataservice.error.entity_key_conflict" {
			err = nil // it had been stored
		}
	}
	fmt.Println("stored once:", err == nil)
	// Output:
	// outcome unknown
	// stored once: true
}

func ExampleWithAuth() {
	p, inst, _ := exampleFleet()
	defer p.Close()
	authID, secret := inst.Credentials()
	// One HELLO offers both methods; the router picks the one it speaks.
	c, err := client.New(client.WithEnv(inst.Env()),
		client.WithAuth(client.WAMPCRA(authID, secret), client.Anonymous()))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer c.Stop(ctx)
	info, _ := c.Session()
	fmt.Println(info.AuthMethod)
	// Output: wampcra
}

func ExampleClient_RegisterProcedure() {
	callee, caller, stop := examplePair()
	defer stop()
	ctx := context.Background()
	// Any full URI on other routers; the platform lets a device register
	// only its own functions, <swarm>.<device>.<app>.<STAGE>.<name>.
	id := callee.Identity()
	uri := fmt.Sprintf("%d.%d.%d.%s.tools.greet", id.SwarmKey, id.DeviceKey, id.AppKey, id.Stage)
	if _, err := callee.RegisterProcedure(ctx, uri, func(_ context.Context, inv *client.Invocation) (any, error) {
		return "hello " + inv.Args[0].(string), nil
	}); err != nil {
		fmt.Println(err)
		return
	}
	res, err := caller.Call(ctx, uri, "flock")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Args[0])
	// Output: hello flock
}

func ExampleNoMetadata() {
	pub, sub, stop := examplePair()
	defer stop()
	ctx := context.Background()
	got := make(chan *client.Event, 1)
	if _, err := sub.Subscribe(ctx, "com.example.raw", func(_ context.Context, ev *client.Event) { got <- ev }); err != nil {
		fmt.Println(err)
		return
	}
	if err := pub.Publish(ctx, "com.example.raw", 21.5, client.Kwargs{"unit": "C"}, client.NoMetadata()); err != nil {
		fmt.Println(err)
		return
	}
	ev := <-got
	fmt.Println(ev.Args, ev.Kwargs)
	// Output: [21.5] map[unit:C]
}

// A device that reconnects registers its functions again a moment after
// its return; a call that may race that waits for the registration
// instead of failing with wamp.error.no_such_procedure.
func ExampleWaitForRegistration() {
	pump, controller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	answer := make(chan string, 1)
	go func() {
		res, err := controller.CallDeviceFunction(ctx, pump.Identity().DeviceKey, "status",
			client.WaitForRegistration(10*time.Second))
		if err != nil {
			answer <- err.Error()
			return
		}
		s, _ := res.Args[0].(string)
		answer <- s
	}()
	_, err := pump.RegisterDeviceFunction(ctx, "status", func(context.Context, *client.Invocation) (any, error) {
		return "running", nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(<-answer)
	// Output: running
}
