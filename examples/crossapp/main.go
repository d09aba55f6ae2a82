// Command crossapp runs two apps of one project against the embedded fake
// platform: a weather station (app "weather") writes readings to its
// table, and a dashboard (app "dashboard", which consumes weather) reads
// that table — its catalog, new rows in realtime, history and an hourly
// series, with the secret column masked and the private table out of
// reach — until the project user revokes the access.
//
//	go run ./examples/crossapp
//
// With -device it runs as the consumer on a real device instead, with the
// environment the device agent injects (DEVICE_SERIAL_NUMBER, SWARM_KEY,
// APP_KEY, …), and prints the catalog and the newest rows of the provider
// named by -provider.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/platformtest"
)

func main() {
	device := flag.Bool("device", false, "run as the consumer on a device, with the environment of the device agent, instead of the embedded fake")
	provider := flag.String("provider", "weather", "the `app` to read, with -device")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var err error
	if *device {
		err = readDevice(ctx, os.Stdout, *provider)
	} else {
		err = run(ctx, os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crossapp:", err)
		os.Exit(1)
	}
}

// weatherTemplate is the provider's .ironflock/data-template.yml: readings
// it shares (with a secret column) and a private calibration table.
const weatherTemplate = `
data:
  tables:
    - tablename: readings
      description: Air temperature, every ten minutes
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: station, name: Station, dataType: string}
        - {id: celsius, name: Temperature, dataType: numeric}
        - {id: api_key, name: Upstream key, dataType: string, secret: true}
    - tablename: calibration
      private: true
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: offset, dataType: numeric}
`

// dashboardTemplate is the consumer's: it consumes weather.
const dashboardTemplate = `
data:
  tables: []
consumes:
  - app: weather
`

// reading is a row of the readings table.
type reading struct {
	Tsp     time.Time `json:"tsp"`
	Station string    `json:"station"`
	Celsius float64   `json:"celsius"`
	APIKey  string    `json:"api_key,omitempty"`
}

func run(ctx context.Context, out io.Writer) error {
	// The fake platform: one project, the two apps on a device each, and
	// the grant of the project user.
	p, err := platformtest.Start()
	if err != nil {
		return err
	}
	defer p.Close()
	pr := p.AddProject("farm")
	weather := p.AddApp("weather", weatherTemplate)
	dashboard := p.AddApp("dashboard", dashboardTemplate)
	stationInst := p.Install(pr.AddDevice("station-1"), weather, platformtest.Dev)
	panelInst := p.Install(pr.AddDevice("panel-1"), dashboard, platformtest.Dev)
	p.Grant(pr, dashboard, "weather")
	fmt.Fprintf(out, "platform  listening on %s; dashboard may read weather\n", p.URL())

	station, err := start(ctx, stationInst)
	if err != nil {
		return err
	}
	defer station.Stop(context.Background())
	panel, err := start(ctx, panelInst)
	if err != nil {
		return err
	}
	defer panel.Stop(context.Background())

	// station-1 writes an hour of readings.
	at := time.Date(2026, 5, 4, 6, 0, 0, 0, time.UTC)
	var rows []reading
	for i := range 6 {
		rows = append(rows, reading{Tsp: at.Add(time.Duration(i) * 10 * time.Minute), Station: "north", Celsius: 11 + float64(i)/2, APIKey: "sk-upstream"})
	}
	if _, err := station.AppendRowsToTable(ctx, "readings", rows); err != nil {
		return err
	}
	fmt.Fprintf(out, "station-1 stored %d readings\n", len(rows))

	// panel-1 opens weather's data; OnError learns when access ends.
	lost := make(chan error, 1)
	w, err := crossapp.New(panel).Connect(ctx, "weather", crossapp.OnError(func(err error) { lost <- err }))
	if err != nil {
		return err
	}
	for _, t := range w.Tables() {
		fmt.Fprintf(out, "panel-1   weather shares %s (%s):", t.Name, t.Description)
		for _, c := range t.Columns {
			secret := ""
			if c.Secret {
				secret = " secret"
			}
			fmt.Fprintf(out, " %s%s", c.ID, secret)
		}
		fmt.Fprintln(out)
	}

	// Realtime: a new reading reaches the dashboard.
	seen := make(chan reading, 1)
	if _, err := w.SubscribeToTable(ctx, "readings", func(_ context.Context, ev *client.TableEvent) {
		var r reading
		if ev.Decode(&r) == nil {
			seen <- r
		}
	}); err != nil {
		return err
	}
	if _, err := station.AppendToTable(ctx, "readings", reading{Tsp: at.Add(time.Hour), Station: "north", Celsius: 14.5, APIKey: "sk-upstream"}); err != nil {
		return err
	}
	select {
	case r := <-seen:
		fmt.Fprintf(out, "panel-1   new reading %s %.1f °C (key %s)\n", r.Tsp.Format("15:04"), r.Celsius, r.APIKey)
	case <-ctx.Done():
		return ctx.Err()
	}

	// History and a series, as the dashboard's own tables read.
	history, err := w.GetHistory(ctx, "readings", &client.Query{Limit: 3, Columns: []string{"celsius"}})
	if err != nil {
		return err
	}
	latest, err := client.DecodeRows[reading](history)
	if err != nil {
		return err
	}
	for _, r := range latest {
		fmt.Fprintf(out, "history   %s %.1f °C\n", r.Tsp.Format("15:04"), r.Celsius)
	}
	series, err := w.GetSeriesHistory(ctx, "readings", client.SeriesQuery{
		Metrics:   []client.Metric{{Ref: "celsius", Method: client.AVG}},
		Limit:     2,
		TimeRange: client.TimeRange{Start: at, End: at.Add(2 * time.Hour)},
		Bucket:    time.Hour,
	})
	if err != nil {
		return err
	}
	for _, b := range series {
		start, _ := client.Decode[time.Time](b["tsp"])
		avg, _ := client.Decode[float64](b["AVG:celsius"])
		fmt.Fprintf(out, "series    %s average %.2f °C\n", start.Format("15:04"), avg)
	}

	// What stays the provider's own.
	_, err = w.GetHistory(ctx, "calibration", nil)
	fmt.Fprintf(out, "private   calibration: %s\n", crossapp.CodeOf(err))
	_, err = w.GetHistory(ctx, "readings", &client.Query{FilterAnd: []client.Filter{client.Where("api_key", "=", "sk-upstream")}})
	fmt.Fprintf(out, "secret    filter on api_key: %s\n", crossapp.CodeOf(err))

	// The project user takes the grant back.
	p.Revoke(pr, dashboard, "weather")
	select {
	case err := <-lost:
		fmt.Fprintf(out, "panel-1   access lost: %s\n", crossapp.CodeOf(err))
	case <-ctx.Done():
		return ctx.Err()
	}
	_, err = w.GetHistory(ctx, "readings", nil)
	fmt.Fprintf(out, "panel-1   next read: %s\n", crossapp.CodeOf(err))
	fmt.Fprintln(out, "done")
	return nil
}

// readDevice runs as the consumer on a device: it prints what the provider
// shares and the newest rows of its first table.
func readDevice(ctx context.Context, out io.Writer, provider string) error {
	c, err := client.New()
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	defer c.Stop(context.Background())
	w, err := crossapp.New(c).Connect(ctx, provider)
	if err != nil {
		return err
	}
	for _, t := range w.Tables() {
		fmt.Fprintf(out, "table     %s: %d columns\n", t.Name, len(t.Columns))
	}
	for _, t := range w.Transforms() {
		fmt.Fprintf(out, "transform %s: %d columns\n", t.Name, len(t.Columns))
	}
	if len(w.Tables()) == 0 {
		return nil
	}
	table := w.Tables()[0].Name
	rows, err := w.GetHistory(ctx, table, &client.Query{Limit: 5})
	if err != nil {
		return err
	}
	for _, r := range rows {
		fmt.Fprintf(out, "%s %v\n", table, map[string]any(r))
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
