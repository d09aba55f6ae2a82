// This file holds the examples of calls and device functions with typed
// values decoded straight from their messages: Into and LazyArgs.

package client_test

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/client"
)

// SensorReading is what the examples' device function takes and answers.
type SensorReading struct {
	Sensor      string  `json:"sensor"`
	Temperature float64 `json:"temperature"`
}

func ExampleInto() {
	callee, caller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	if _, err := callee.RegisterDeviceFunction(ctx, "latest", func(ctx context.Context, inv *client.Invocation) (any, error) {
		return SensorReading{Sensor: "greenhouse-3", Temperature: 21.5}, nil
	}); err != nil {
		fmt.Println(err)
		return
	}
	// The result is decoded into r straight from the message: a loop
	// calling a device function keeps one SensorReading, not a map per call.
	var r SensorReading
	if _, err := caller.CallDeviceFunction(ctx, callee.Identity().DeviceKey, "latest", client.Into(&r)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Sensor, r.Temperature)
	// Output: greenhouse-3 21.5
}

func ExampleLazyArgs() {
	callee, caller, stop := examplePair()
	defer stop()
	ctx := context.Background()

	// The handler decodes its argument straight from the message (Args
	// and Kwargs stay nil) and answers with a struct, written straight into
	// the answer.
	if _, err := callee.RegisterDeviceFunction(ctx, "calibrate", func(ctx context.Context, inv *client.Invocation) (any, error) {
		var r SensorReading
		if err := inv.Decode(&r); err != nil {
			return nil, err
		}
		r.Temperature -= 0.5
		return &r, nil
	}, client.LazyArgs()); err != nil {
		fmt.Println(err)
		return
	}
	var out SensorReading
	in := SensorReading{Sensor: "greenhouse-3", Temperature: 21.5}
	if _, err := caller.CallDeviceFunction(ctx, callee.Identity().DeviceKey, "calibrate", in, client.Into(&out)); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Sensor, out.Temperature)
	// Output: greenhouse-3 21
}
