package crossapp_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/platformtest"
)

// The data templates of the examples: the provider weather shares its
// readings; the consumer dashboard consumes weather.
const (
	exampleWeather = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: station, name: Station, dataType: string}
        - {id: temp, name: Temperature, dataType: numeric}
        - {id: api_key, name: Key, dataType: string, secret: true}
    - tablename: calibration
      private: true
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: offset, dataType: numeric}
`
	exampleDashboard = `
data:
  tables: []
consumes:
  - app: weather
`
)

// world is the examples' platform: a project where dashboard may read
// weather, and a connected client of dashboard.
type world struct {
	c         *client.Client
	p         *platformtest.Platform
	pr        *platformtest.Project
	dashboard *platformtest.App
	station   *platformtest.Installation
}

// example starts the examples' world; stop ends it.
func example() (w world, stop func()) {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	w.p = p
	w.pr = p.AddProject("plant")
	weather := p.AddApp("weather", exampleWeather)
	w.dashboard = p.AddApp("dashboard", exampleDashboard)
	w.station = p.Install(w.pr.AddDevice("station-1"), weather, platformtest.Dev)
	panel := p.Install(w.pr.AddDevice("panel-1"), w.dashboard, platformtest.Dev)
	p.Grant(w.pr, w.dashboard, "weather") // the project user's grant
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i, temp := range []float64{18.5, 19.25, 21} {
		row := map[string]any{"tsp": at.Add(time.Duration(i) * time.Hour), "station": "north", "temp": temp, "api_key": "k-1"}
		if err := p.InsertRows(w.station, "readings", row); err != nil {
			panic(err)
		}
	}
	if w.c, err = client.New(client.WithEnv(panel.Env())); err != nil {
		panic(err)
	}
	if err := w.c.Start(context.Background()); err != nil {
		panic(err)
	}
	return w, func() { _ = w.c.Stop(context.Background()); p.Close() }
}

// Read another app's table: its catalog, its history, and what stays
// private.
func Example() {
	w, stop := example()
	defer stop()
	ctx := context.Background()

	apps := crossapp.New(w.c)
	weather, err := apps.Connect(ctx, "weather")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, t := range weather.Tables() {
		fmt.Printf("shared table %s with %d columns\n", t.Name, len(t.Columns))
	}
	type reading struct {
		Tsp    time.Time `json:"tsp"`
		Temp   float64   `json:"temp"`
		APIKey string    `json:"api_key"`
	}
	rows, err := weather.GetHistory(ctx, "readings", &client.Query{Limit: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	readings, _ := client.DecodeRows[reading](rows)
	for _, r := range readings {
		fmt.Printf("%s %.2f °C key %s\n", r.Tsp.Format("15:04"), r.Temp, r.APIKey)
	}
	_, err = weather.GetHistory(ctx, "calibration", nil)
	fmt.Println(crossapp.CodeOf(err))
	_, err = weather.GetHistory(ctx, "readings", &client.Query{FilterAnd: []client.Filter{client.Where("api_key", "=", "k-1")}})
	fmt.Println(crossapp.CodeOf(err))
	// Output:
	// shared table readings with 4 columns
	// 13:00 19.25 °C key __secret__
	// 14:00 21.00 °C key __secret__
	// PRIVATE_TABLE
	// SECRET_COLUMN
}

// Follow another app's new rows, and learn when the access is revoked.
func ExampleProvider_SubscribeToTable() {
	w, stop := example()
	defer stop()
	ctx := context.Background()

	lost := make(chan error, 1)
	weather, err := crossapp.New(w.c).Connect(ctx, "weather", crossapp.OnError(func(err error) { lost <- err }))
	if err != nil {
		fmt.Println(err)
		return
	}
	temps := make(chan any, 1)
	_, err = weather.SubscribeToTable(ctx, "readings", func(_ context.Context, ev *client.TableEvent) {
		temps <- ev.Row["temp"]
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	sensor, err := client.New(client.WithEnv(w.station.Env()))
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := sensor.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	defer sensor.Stop(ctx)
	_, err = sensor.AppendToTable(ctx, "readings", map[string]any{"tsp": time.Now(), "station": "north", "temp": 22.5})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("new reading:", <-temps)

	w.p.Revoke(w.pr, w.dashboard, "weather") // the platform ends the reader's session
	err = <-lost
	fmt.Println("access lost:", crossapp.CodeOf(err))
	_, err = weather.GetHistory(ctx, "readings", nil)
	fmt.Println(errors.Is(err, &crossapp.AccessError{Code: crossapp.CodeNoGrant}))
	// Output:
	// new reading: 22.5
	// access lost: NO_GRANT
	// true
}
