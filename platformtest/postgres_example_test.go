package platformtest_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest"
)

// scheduledTemplate has a transform that the platform publishes every
// five minutes of platform time.
const scheduledTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temperature, dataType: numeric}
  transforms:
    - tablename: warmest
      materialize: true
      schedule: "*/5 * * * *"
      sql: SELECT max(temperature) AS temperature FROM sensordata
      columns:
        - {id: temperature, dataType: numeric}
`

// RunSchedules runs the schedules that moving the clock made due: here a
// transform's tick, which publishes the view on transformed.<transform>.
// On the memory store the view holds the rows SetTransformRows gave; with
// WithPostgres the tick recomputes it from its SQL first.
func ExamplePlatform_RunSchedules() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, err := platformtest.Start(platformtest.WithStartTime(t0))
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	in := p.Install(p.AddDevice("sensor-1"), p.AddApp("weather", scheduledTemplate), platformtest.Dev)
	c, err := join(ctx, p, in)
	if err != nil {
		log.Fatal(err)
	}
	defer c.Close()
	ticks := make(chan any, 1)
	if err := c.Subscribe("transformed.warmest", func(ev *wamp.Event) { ticks <- ev.Arguments[0] }, nil); err != nil {
		log.Fatal(err)
	}
	if err := p.SetTransformRows(in.Realm(), "warmest", []map[string]any{{"temperature": 23.5}}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("set:", <-ticks)

	p.Clock().Advance(5 * time.Minute)
	if err := p.RunSchedules(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("tick:", <-ticks)
	// Output:
	// set: [map[temperature:23.5]]
	// tick: [map[temperature:23.5]]
}

// WithPostgres keeps the tables in a PostgreSQL database, which computes
// the transforms from their SQL, and gives each realm a read-only role
// for direct SQL. This example needs a database, so it is compiled but not
// run; the tests of this package run the same against the database in
// $IRONFLOCK_TEST_POSTGRES (docs/testing.md says how).
func ExampleWithPostgres() {
	url := os.Getenv("IRONFLOCK_TEST_POSTGRES") // postgres://user:password@127.0.0.1:5432/database
	p, err := platformtest.Start(platformtest.WithStartTime(t0),
		platformtest.WithPostgres(url, platformtest.PostgresScratch())) // schemas of its own, dropped by Close
	if err != nil {
		log.Fatal(err)
	}
	defer p.Close()
	in := p.Install(p.AddDevice("sensor-1"), p.AddApp("weather", scheduledTemplate), platformtest.Dev)
	if err := p.InsertRows(in, "sensordata",
		map[string]any{"tsp": t0, "temperature": 21.5},
		map[string]any{"tsp": t0.Add(time.Minute), "temperature": 23.5},
	); err != nil {
		log.Fatal(err)
	}
	// The materialized view is recomputed on its schedule.
	p.Clock().Advance(5 * time.Minute)
	if err := p.RunSchedules(); err != nil {
		log.Fatal(err)
	}
	// Direct SQL, as a board or a notebook reads: tables and transforms by
	// their template names, read-only.
	sqlURL, err := p.SQLURL(in.Realm())
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, sqlURL)
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close(ctx)
	var warmest float64
	if err := conn.QueryRow(ctx, "SELECT temperature FROM warmest").Scan(&warmest); err != nil {
		log.Fatal(err)
	}
	fmt.Println(warmest)
}
