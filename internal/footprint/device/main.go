// Command device is the SDK side of the footprint comparison (see package
// footprint): a device program with its configuration from the device
// agent's environment, a device function, one publish, one append and one
// history read, written with the SDK.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		slog.Error("device", "err", err)
		os.Exit(1)
	}
}

// reading is a row of the table sensordata.
type reading struct {
	Tsp         time.Time `json:"tsp"`
	Temperature float64   `json:"temperature"`
	Source      string    `json:"source"`
}

// run does the job, prints "ready" on out and serves the device function
// until ctx ends, SIGINT or SIGTERM.
func run(ctx context.Context, out io.Writer, opts ...client.Option) error {
	c, err := client.New(opts...)
	if err != nil {
		return err
	}
	return c.Run(ctx, func(ctx context.Context) error {
		if _, err := c.RegisterDeviceFunction(ctx, "echo", func(ctx context.Context, inv *client.Invocation) (any, error) {
			return &client.Result{Args: inv.Args, Kwargs: inv.Kwargs}, nil
		}); err != nil {
			return err
		}
		r := reading{Tsp: time.Now().UTC(), Temperature: 21.5, Source: "footprint"}
		if err := c.Publish(ctx, "com.example.readings", r); err != nil {
			return err
		}
		if _, err := c.AppendToTable(ctx, "sensordata", r); err != nil {
			return err
		}
		rows, err := c.GetHistory(ctx, "sensordata", &client.Query{Limit: 5})
		if err != nil {
			return err
		}
		slog.Info("device: job done", "serial", c.Identity().SerialNumber, "history_rows", len(rows))
		if _, err := fmt.Fprintln(out, "ready"); err != nil {
			return err
		}
		<-ctx.Done()
		return nil
	})
}
