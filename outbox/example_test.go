package outbox_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

// exampleTemplate is the data template of the examples' app: readings
// with a column for the outbox's row ids.
const exampleTemplate = `
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

// example starts a fake platform with the example template, a started
// client and an outbox in a new directory; stop ends them.
func example() (ob *outbox.Outbox, p *platformtest.Platform, c *client.Client, stop func()) {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	in := p.Install(p.AddDevice("boiler"), p.AddApp("heating", exampleTemplate), platformtest.Dev)
	c, err = client.New(client.WithEnv(in.Env()), client.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	dir, err := os.MkdirTemp("", "outbox-example")
	if err != nil {
		panic(err)
	}
	ob, err = outbox.Open(c, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet))
	if err != nil {
		panic(err)
	}
	return ob, p, c, func() {
		_ = ob.Close()
		_ = c.Stop(context.Background())
		p.Close()
		_ = os.RemoveAll(dir)
	}
}

// Rows appended while the platform is down wait on disk and are delivered
// once it is back.
func Example() {
	ob, p, c, stop := example()
	defer stop()
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)

	p.Down()
	for i := range 3 {
		if _, err := ob.Append(ctx, "readings", Reading{Tsp: at.Add(time.Duration(i) * time.Minute), Celsius: 20 + float64(i)}); err != nil {
			fmt.Println(err)
			return
		}
	}
	fmt.Println("pending while down:", ob.Stats().Pending)

	if err := p.Up(); err != nil {
		fmt.Println(err)
		return
	}
	if err := ob.Flush(ctx); err != nil {
		fmt.Println(err)
		return
	}
	rows, _ := c.GetHistory(ctx, "readings", nil)
	readings, _ := client.DecodeRows[Reading](rows)
	for _, r := range readings {
		fmt.Println(r.Tsp.Format(time.TimeOnly), r.Celsius)
	}
	s := ob.Stats()
	fmt.Println("pending:", s.Pending, "delivered:", s.Delivered)
	// Output:
	// pending while down: 3
	// 08:00:00 20
	// 08:01:00 21
	// 08:02:00 22
	// pending: 0 delivered: 3
}

// A row the data backend refuses for good (here: without tsp) goes to the
// dead-letter list; the rows around it are delivered.
func ExampleOutbox_DeadLetters() {
	ob, _, _, stop := example()
	defer stop()
	ctx := context.Background()
	at := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)

	_, err := ob.AppendRows(ctx, "readings", []map[string]any{
		{"tsp": at, "celsius": 20},
		{"celsius": 21}, // no tsp
		{"tsp": at.Add(time.Minute), "celsius": 22},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	err = ob.Flush(ctx)
	fmt.Println("flush:", errors.Is(err, outbox.ErrUndelivered))
	for d, err := range ob.DeadLetters() {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("dead letter:", d.Table, d.Row["celsius"], d.URI)
		if _, err := ob.Drop(ctx, d.ID); err != nil {
			fmt.Println(err)
		}
	}
	fmt.Println("delivered:", ob.Stats().Delivered)
	// Output:
	// flush: true
	// dead letter: readings 21 wamp.error.runtime_error
	// delivered: 2
}
