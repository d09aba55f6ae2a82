// This file holds what the demo runs besides its seed, so that no page of
// the console starts empty: stored files in the demo app's namespaces (an
// image among them) and a device program, sensor-2, that serves the tool
// of the demo's agent template through package agent, as an app on a
// device would.

package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"log/slog"
	"math"
	"time"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// demoAITemplate is the agent template of the demo app: one agent with
// one tool the demo device serves.
const demoAITemplate = `assistant:
  main: true
  tool_description: Answers questions about the demo sensors.
  system_prompt: You answer questions about the demo sensors. Read their values with your tool.
  max_context_tokens: 4096
  messages_after_summary: 10
  max_iterations: 3
  tools:
    read_sensor:
      description: Reads the newest temperature and humidity this device stored.
      topic: read_sensor
      parameters:
        type: object
        properties:
          unit: {type: string, enum: [C, F], description: Unit of the temperature; C when left out}
        additionalProperties: false
`

// demoToolDevice is the demo device that serves the tool.
const demoToolDevice = "sensor-2"

// demoStartTimeout bounds the start of the demo device.
const demoStartTimeout = 20 * time.Second

// sensorArgs are the parameters of read_sensor.
type sensorArgs struct {
	Unit *string `json:"unit"`
}

// sensorReading is read_sensor's answer.
type sensorReading struct {
	Device      string    `json:"device"`
	At          time.Time `json:"at"`
	Temperature float64   `json:"temperature"`
	Unit        string    `json:"unit"`
	Humidity    float64   `json:"humidity_percent"`
}

// startDemo stores the demo's files and starts the demo device. It
// returns the function that stops the device (safe to call more than
// once). What fails is logged: flockd serves without it.
func startDemo(p *platformtest.Platform, res *platformtest.SeedResult, log *slog.Logger) (stop func()) {
	stop = func() {}
	var in *platformtest.Installation
	for _, i := range res.Installations {
		if i.Device().Name() == demoToolDevice {
			in = i
		}
	}
	if in == nil {
		return stop
	}
	storeDemoFiles(p, in.Realm())
	c, err := startDemoDevice(in, log.With("demo_device", demoToolDevice))
	if err != nil {
		log.Warn("the demo device does not serve its tool", "device", demoToolDevice, "err", err)
		return stop
	}
	log.Info("demo device serves the agent tool read_sensor", "device", demoToolDevice, "realm", in.Realm())
	done := false
	return func() {
		if done {
			return
		}
		done = true
		ctx, cancel := context.WithTimeout(context.Background(), client.DefaultStopBudget)
		defer cancel()
		_ = c.Stop(ctx)
	}
}

// startDemoDevice connects the demo device and serves read_sensor.
func startDemoDevice(in *platformtest.Installation, log *slog.Logger) (*client.Client, error) {
	c, err := client.New(client.WithEnv(in.Env()), client.WithLogger(log))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), demoStartTimeout)
	defer cancel()
	if err := c.Start(ctx); err != nil {
		return nil, err
	}
	tpl, err := agent.Parse([]byte(demoAITemplate))
	if err == nil {
		_, err = agent.Serve(ctx, c, tpl, agent.Typed("read_sensor", func(ctx context.Context, a sensorArgs) (sensorReading, error) {
			return readSensor(ctx, c, a)
		}))
	}
	if err != nil {
		_ = c.Stop(context.Background())
		return nil, err
	}
	return c, nil
}

// readSensor answers read_sensor from the newest row this device stored.
func readSensor(ctx context.Context, c *client.Client, a sensorArgs) (sensorReading, error) {
	id := c.Identity()
	rows, err := c.GetHistory(ctx, "sensordata", &client.Query{Limit: 1,
		FilterAnd: []client.Filter{client.Where("device_key", "=", id.DeviceKey)}})
	if err != nil {
		return sensorReading{}, err
	}
	if len(rows) == 0 {
		return sensorReading{}, agent.InvalidArgument("device %s has stored no reading yet", id.DeviceName)
	}
	type row struct {
		Tsp         time.Time `json:"tsp"`
		Temperature float64   `json:"temperature"`
		Humidity    float64   `json:"humidity"`
	}
	decoded, err := client.DecodeRows[row](rows)
	if err != nil {
		return sensorReading{}, err
	}
	r := decoded[0]
	out := sensorReading{Device: id.DeviceName, At: r.Tsp, Temperature: r.Temperature, Unit: "C", Humidity: r.Humidity}
	if a.Unit != nil && *a.Unit == "F" {
		out.Temperature, out.Unit = math.Round((r.Temperature*9/5+32)*10)/10, "F"
	}
	return out, nil
}

// storeDemoFiles stores a few objects in the demo app's namespaces, as an
// app would have uploaded them: a camera snapshot (a PNG drawn here), a
// calibration record and a note.
func storeDemoFiles(p *platformtest.Platform, realm string) {
	p.StoreFile(realm, "snapshots", "sensor-2/2026-01-01T08-00.png", demoSnapshot(), "image/png")
	p.StoreFile(realm, "default", "calibration/sensor-2.json",
		[]byte(`{"device":"sensor-2","offset_celsius":-0.4,"calibrated":"2026-01-01T07:30:00Z"}`+"\n"), "application/json")
	p.StoreFile(realm, "default", "README.txt",
		[]byte("Files of the flockd demo. Apps store theirs with package files (go run ./examples/files).\n"), "text/plain")
}

// demoSnapshot draws a small PNG: a warm-to-cold gradient with a band,
// like a thermal snapshot.
func demoSnapshot() []byte {
	const w, h = 96, 64
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			t := float64(x) / w
			band := math.Abs(float64(y)-h/2) < 6
			c := color.RGBA{R: uint8(255 * t), G: uint8(80 + 60*math.Sin(float64(y)/6)), B: uint8(255 * (1 - t)), A: 255}
			if band {
				c = color.RGBA{R: 250, G: 250, B: 250, A: 255}
			}
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(fmt.Sprintf("encoding the demo snapshot: %v", err)) // cannot happen: an in-memory RGBA image
	}
	return b.Bytes()
}
