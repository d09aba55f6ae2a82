// Command outbox keeps writing temperature readings through an outbox on
// disk while the embedded fake platform goes down and comes back, and
// shows the queue filling during the outage and draining afterwards:
//
//	go run ./examples/outbox
//
// -dir keeps the queue in a directory of your choice: kill the program
// (kill -9 too) and run it again with the same -dir, and the rows it had
// queued are delivered first. With -device it runs as a real device app
// instead, with the environment the device agent injects; the app's data
// template must then declare the table readings with the columns of
// dataTemplate below (the platform is not taken down then).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/template"
)

func main() {
	device := flag.Bool("device", false, "run as a device app with the environment of the device agent instead of the embedded fake")
	dir := flag.String("dir", "", "directory of the queue (default: a temporary one, removed at the end)")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := run(ctx, os.Stdout, *dir, *device); err != nil {
		fmt.Fprintln(os.Stderr, "outbox:", err)
		os.Exit(1)
	}
}

// dataTemplate is the app's .ironflock/data-template.yml: readings carry
// the outbox's row id in row_id, which makes delivery exactly once.
const dataTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: row_id, name: Row id, dataType: string}
        - {id: celsius, name: Temperature, dataType: numeric}
`

// Reading is a row of the readings table.
type Reading struct {
	Tsp     time.Time `json:"tsp"`
	Celsius float64   `json:"celsius"`
}

// The phases of the run: readings written online, during the outage and
// while the queue drains.
const (
	online   = 10
	offline  = 30
	catchUp  = 10
	interval = 20 * time.Millisecond // between readings
)

func run(ctx context.Context, out io.Writer, dir string, device bool) error {
	tpl, _, err := template.ParseData([]byte(dataTemplate))
	if err != nil {
		return err
	}
	if err := tpl.CheckRowIDColumn("readings", "row_id"); err != nil {
		return err
	}
	var p *platformtest.Platform
	opts := []client.Option{client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))),
		client.WithReconnectBackoff(50*time.Millisecond, 200*time.Millisecond)}
	if !device {
		if p, err = platformtest.Start(); err != nil {
			return err
		}
		defer p.Close()
		inst := p.Install(p.AddDevice("boiler-1"), p.AddApp("heating", dataTemplate), platformtest.Dev)
		opts = append(opts, client.WithEnv(inst.Env()))
		fmt.Fprintf(out, "platform  listening on %s\n", p.HTTPURL())
	}
	if dir == "" {
		if dir, err = os.MkdirTemp("", "outbox-example"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	c, err := client.New(opts...)
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	ob, err := outbox.Open(c, dir, outbox.WithIDColumn("row_id"))
	if err != nil {
		return err
	}
	defer ob.Close()
	if s := ob.Stats(); s.Pending > 0 {
		fmt.Fprintf(out, "resumed   %d readings queued by an earlier run\n", s.Pending)
	}

	n := 0
	write := func(count int) error {
		for range count {
			n++
			r := Reading{Tsp: time.Now(), Celsius: 20 + float64(n%10)/10}
			if _, err := ob.Append(ctx, "readings", r); err != nil {
				return err
			}
			time.Sleep(interval)
		}
		return nil
	}

	if err := write(online); err != nil {
		return err
	}
	if err := ob.Flush(ctx); err != nil {
		return err
	}
	fmt.Fprintf(out, "online    %d readings written, %d delivered\n", online, ob.Stats().Delivered)

	if p != nil {
		p.Down()
		fmt.Fprintln(out, "platform  down")
	}
	if err := write(offline); err != nil {
		return err
	}
	s := ob.Stats()
	fmt.Fprintf(out, "offline   %d readings written; queue: %d pending (%d bytes), oldest %s ago\n",
		offline, s.Pending, s.PendingBytes, s.OldestAge.Round(100*time.Millisecond))

	if p != nil {
		if err := p.Up(); err != nil {
			return err
		}
		fmt.Fprintln(out, "platform  up")
	}
	// Keep writing while the queue drains, and watch it.
	done := make(chan error, 1)
	go func() { done <- write(catchUp) }()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for writing := true; writing; {
		select {
		case err := <-done:
			if err != nil {
				return err
			}
			writing = false
		case <-tick.C:
			s := ob.Stats()
			fmt.Fprintf(out, "draining  %d pending, %d delivered\n", s.Pending, s.Delivered)
		}
	}
	if err := ob.Flush(ctx); err != nil {
		return err
	}
	s = ob.Stats()
	fmt.Fprintf(out, "drained   %d pending, %d delivered this run, %d dead-lettered\n", s.Pending, s.Delivered, s.DeadLettered)
	if p != nil {
		rows, err := c.GetHistory(ctx, "readings", &client.Query{Limit: client.MaxHistoryLimit})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "table     readings holds %d rows\n", len(rows))
	}
	fmt.Fprintln(out, "done")
	return nil
}
