// Command quickstart runs two edge apps against the embedded fake platform:
// one device subscribes to a topic and serves a device function, the other
// publishes to the topic and calls the function; then the sensor writes
// rows to a fleet table, the display reacts to them in realtime and reads
// their history and a down-sampled series.
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
	app := p.AddApp("quickstart", dataTemplate)
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

	if err := tables(ctx, out, sensor, display); err != nil {
		return err
	}
	fmt.Fprintln(out, "done")
	return nil
}

// dataTemplate is the app's .ironflock/data-template.yml: one fleet table.
const dataTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
`

// sample is a row of the sensordata table.
type sample struct {
	Tsp         time.Time `json:"tsp"`
	Temperature float64   `json:"temperature"`
}

// tables writes an hour of readings and reads them back three ways.
func tables(ctx context.Context, out io.Writer, sensor, display *client.Client) error {
	// display-1 reacts to every new row.
	seen := make(chan sample, 16)
	sub, err := display.SubscribeToTable(ctx, "sensordata", func(ctx context.Context, ev *client.TableEvent) {
		var s sample
		if ev.Decode(&s) == nil {
			seen <- s
		}
	})
	if err != nil {
		return err
	}
	defer sub.Unsubscribe(context.Background())

	// sensor-1 writes six readings, ten minutes apart, in one atomic insert.
	start := time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC)
	var rows []sample
	for i := range 6 {
		rows = append(rows, sample{Tsp: start.Add(time.Duration(i) * 10 * time.Minute), Temperature: 20 + float64(i)})
	}
	res, err := sensor.AppendRowsToTable(ctx, "sensordata", rows)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "sensor-1  stored %d rows in table sensordata\n", res.Count)
	for range rows {
		select {
		case <-seen:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	fmt.Fprintf(out, "display-1 saw %d new rows in realtime\n", len(rows))

	// The three newest readings above 21 °C.
	history, err := display.GetHistory(ctx, "sensordata", &client.Query{
		Limit:     3,
		FilterAnd: []client.Filter{client.Where("temperature", ">", 21)},
	})
	if err != nil {
		return err
	}
	readings, err := client.DecodeRows[sample](history)
	if err != nil {
		return err
	}
	for _, r := range readings {
		fmt.Fprintf(out, "history   %s %.1f °C\n", r.Tsp.Format("15:04"), r.Temperature)
	}

	// Half-hour averages.
	series, err := display.GetSeriesHistory(ctx, "sensordata", client.SeriesQuery{
		Metrics:   []client.Metric{{Ref: "temperature", Method: client.AVG}},
		Limit:     10,
		TimeRange: client.TimeRange{Start: start, End: start.Add(time.Hour)},
		Bucket:    30 * time.Minute,
	})
	if err != nil {
		return err
	}
	for _, b := range series {
		at, _ := client.Decode[time.Time](b["tsp"])
		avg, _ := client.Decode[float64](b["AVG:temperature"])
		fmt.Fprintf(out, "series    %s average %.1f °C\n", at.Format("15:04"), avg)
	}
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
