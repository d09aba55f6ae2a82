// This file holds the runnable examples of the client's core: New, Publish,
// device functions, progressive calls, Decode, WampError, remote access and
// the device location.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// exampleFleet starts a fake platform with one app on two devices.
func exampleFleet() (*platformtest.Platform, *platformtest.Installation, *platformtest.Installation) {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	app := p.AddApp("example", "")
	return p, p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
}

// examplePair starts a fake platform with two connected clients; stop
// ends all three.
func examplePair() (a, b *client.Client, stop func()) {
	p, ia, ib := exampleFleet()
	a, b = exampleClient(ia), exampleClient(ib)
	return a, b, func() {
		ctx := context.Background()
		a.Stop(ctx)
		b.Stop(ctx)
		p.Close()
	}
}

func exampleClient(inst *platformtest.Installation) *client.Client {
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		panic(err)
	}
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	return c
}

func ExampleNew() {
	p, inst, _ := exampleFleet()
	defer p.Close()

	// On a device, client.New() reads the environment the agent injects;
	// here the fake platform hands it over.
	c, err := client.New(client.WithEnv(inst.Env()))
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
	fmt.Println(c.State(), c.Identity().Realm())
	// Output: connected realm-1-1-dev
}

func ExampleClient_Publish() {
	pub, sub, stop := examplePair()
	defer stop()
	ctx := context.Background()

	got := make(chan *client.Event, 1)
	if _, err := sub.Subscribe(ctx, "com.example.greetings", func(_ context.Context, ev *client.Event) { got <- ev }); err != nil {
		fmt.Println(err)
		return
	}
	if err := pub.Publish(ctx, "com.example.greetings", "hello", client.Kwargs{"lang": "en"}); err != nil {
		fmt.Println(err)
		return
	}
	ev := <-got
	fmt.Println(ev.Args[0], ev.Kwargs["lang"], ev.Kwargs["DEVICE_NAME"])
	// Output: hello en a
}

func ExampleClient_RegisterDeviceFunction() {
	callee, caller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	if _, err := callee.RegisterDeviceFunction(ctx, "double", func(ctx context.Context, inv *client.Invocation) (any, error) {
		var n int
		if err := inv.Decode(&n); err != nil {
			return nil, err
		}
		return 2 * n, nil
	}); err != nil {
		fmt.Println(err)
		return
	}
	res, err := caller.CallDeviceFunction(ctx, callee.Identity().DeviceKey, "double", 21)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Args[0])
	// Output: 42
}

func ExampleClient_Call_progress() {
	callee, caller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	reg, _ := callee.RegisterDeviceFunction(ctx, "countdown", func(ctx context.Context, inv *client.Invocation) (any, error) {
		for i := 3; i > 0; i-- {
			_ = inv.SendProgress(ctx, i)
		}
		return "liftoff", nil
	})
	res, err := caller.Call(ctx, reg.Procedure(), client.Progress(func(r *client.Result) { fmt.Println(r.Args[0]) }), client.Timeout(5*time.Second))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Args[0])
	// Output:
	// 3
	// 2
	// 1
	// liftoff
}

func ExampleDecode() {
	type Reading struct {
		Tsp     time.Time `json:"tsp"`
		Celsius float64   `json:"temperature"`
	}
	// A row as the platform sends it: timestamps in epoch milliseconds.
	row := map[string]any{"tsp": int64(1767225600000), "temperature": int64(22)}
	r, err := client.Decode[Reading](row)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Tsp.Format(time.RFC3339), r.Celsius)
	// Output: 2026-01-01T00:00:00Z 22
}

func ExampleWampError() {
	callee, caller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	_, _ = callee.RegisterDeviceFunction(ctx, "open-valve", func(ctx context.Context, inv *client.Invocation) (any, error) {
		return nil, &client.WampError{URI: "com.example.error.valve_stuck", Args: []any{"valve 3 does not move"}}
	})
	_, err := caller.CallDeviceFunction(ctx, callee.Identity().DeviceKey, "open-valve")
	var we *client.WampError
	if errors.As(err, &we) {
		fmt.Println(we.URI)
		fmt.Println(we.Args[0])
	}
	// Output:
	// com.example.error.valve_stuck
	// valve 3 does not move
}

func ExampleClient_RemoteAccessURL() {
	c, err := client.New(client.WithEnv(map[string]string{
		"DEVICE_SERIAL_NUMBER": "5b3c0e0e-0000-4000-8000-000000000001",
		"DEVICE_KEY":           "7",
		"APP_NAME":             "Dashboard",
		"SWARM_KEY":            "1",
		"APP_KEY":              "2",
	}))
	if err != nil {
		fmt.Println(err)
		return
	}
	url, err := c.RemoteAccessURL(8080)
	fmt.Println(url, err)
	// Output: https://7-dashboard-8080.app.ironflock.com <nil>
}

func ExampleClient_SetDeviceLocation() {
	p, inst, _ := exampleFleet()
	defer p.Close()
	c := exampleClient(inst)
	ctx := context.Background()
	defer c.Stop(ctx)

	if err := c.SetDeviceLocation(ctx, 8.6821, 50.1109); err != nil {
		fmt.Println(err)
		return
	}
	loc, _ := inst.Device().Location() // what the platform stored
	fmt.Println(loc.Long, loc.Lat)

	// Checked before sending: longitude -180…180, latitude -90…90.
	err := c.SetDeviceLocation(ctx, 8.6821, 91)
	fmt.Println(errors.Is(err, client.ErrInvalidArgument))
	// Output:
	// 8.6821 50.1109
	// true
}
