// Command quickstart runs two edge apps against the embedded fake platform:
// one device subscribes to a topic and serves a device function, the other
// publishes to the topic and calls the function.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	// The fake platform: one project, one app installed on two devices.
	p, err := platformtest.Start()
	if err != nil {
		return err
	}
	defer p.Close()
	app := p.AddApp("quickstart", "")
	sensorInst := p.Install(p.AddDevice("sensor-1"), app, platformtest.Dev)
	displayInst := p.Install(p.AddDevice("display-1"), app, platformtest.Dev)
	fmt.Fprintf(out, "platform  listening on %s\n", p.URL())

	// Each device runs the app with the environment its agent injects.
	sensor, err := start(ctx, sensorInst)
	if err != nil {
		return err
	}
	defer sensor.Stop(context.Background())
	display, err := start(ctx, displayInst)
	if err != nil {
		return err
	}
	defer display.Stop(context.Background())
	fmt.Fprintf(out, "sensor-1  joined %s as device %d\n", sensor.Identity().Realm(), sensor.Identity().DeviceKey)
	fmt.Fprintf(out, "display-1 joined %s as device %d\n", display.Identity().Realm(), display.Identity().DeviceKey)

	// display-1 listens for readings.
	type reading struct {
		Celsius float64   `json:"celsius"`
		At      time.Time `json:"at"`
	}
	got := make(chan reading, 1)
	if _, err := display.Subscribe(ctx, "com.example.readings", func(ctx context.Context, ev *client.Event) {
		var r reading
		if err := ev.Decode(&r); err == nil {
			got <- r
		}
	}); err != nil {
		return err
	}
	fmt.Fprintln(out, "display-1 subscribed to com.example.readings")

	// sensor-1 serves a device function other devices can call.
	if _, err := sensor.RegisterDeviceFunction(ctx, "calibrate", func(ctx context.Context, inv *client.Invocation) (any, error) {
		var offset float64
		if err := inv.Decode(&offset); err != nil {
			return nil, err
		}
		return map[string]any{"offset": offset, "status": "calibrated"}, nil
	}); err != nil {
		return err
	}
	fmt.Fprintln(out, "sensor-1  registered device function \"calibrate\"")

	// sensor-1 publishes a reading; display-1 receives it.
	at := time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC)
	if err := sensor.Publish(ctx, "com.example.readings", reading{Celsius: 21.5, At: at}); err != nil {
		return err
	}
	fmt.Fprintln(out, "sensor-1  published {celsius: 21.5}")
	select {
	case r := <-got:
		fmt.Fprintf(out, "display-1 received %.1f °C measured at %s\n", r.Celsius, r.At.Format(time.RFC3339))
	case <-ctx.Done():
		return ctx.Err()
	}

	// display-1 calls the function on sensor-1 by its device key.
	res, err := display.CallDeviceFunction(ctx, sensor.Identity().DeviceKey, "calibrate", 0.25)
	if err != nil {
		return err
	}
	var answer struct {
		Offset float64 `json:"offset"`
		Status string  `json:"status"`
	}
	if err := res.Decode(&answer); err != nil {
		return err
	}
	fmt.Fprintf(out, "display-1 called calibrate on device %d: %s (offset %.2f)\n", sensor.Identity().DeviceKey, answer.Status, answer.Offset)
	fmt.Fprintln(out, "done")
	return nil
}

func start(ctx context.Context, inst *platformtest.Installation) (*client.Client, error) {
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		return nil, err
	}
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	return c, nil
}
