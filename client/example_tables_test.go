// This file holds the runnable examples of the table operations, history
// queries and filters.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

// exampleTemplate is the data template of the examples' app.
const exampleTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
        - {id: room, name: Room, dataType: string}
    - tablename: doors
      maintainLatestFlagFor: [door]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: door, name: Door, dataType: string}
        - {id: open, name: Open, dataType: boolean}
`

// Reading is a row of the examples' sensordata table.
type Reading struct {
	Tsp         time.Time `json:"tsp"`
	Temperature float64   `json:"temperature"`
	Room        string    `json:"room"`
}

var exampleStart = time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)

// tableExample starts a fake platform with the example template and a
// connected client; stop ends both.
func tableExample() (c *client.Client, p *platformtest.Platform, stop func()) {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	app := p.AddApp("climate", exampleTemplate)
	c = exampleClient(p.Install(p.AddDevice("sensor"), app, platformtest.Dev))
	return c, p, func() { c.Stop(context.Background()); p.Close() }
}

// seedReadings appends one reading a minute.
func seedReadings(c *client.Client, temps ...float64) {
	var rows []Reading
	for i, t := range temps {
		rows = append(rows, Reading{Tsp: exampleStart.Add(time.Duration(i) * time.Minute), Temperature: t, Room: []string{"lab", "hall"}[i%2]})
	}
	if _, err := c.AppendRowsToTable(context.Background(), "sensordata", rows); err != nil {
		panic(err)
	}
}

func printReadings(rows []client.Row) {
	readings, err := client.DecodeRows[Reading](rows)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range readings {
		fmt.Printf("%s %s %.1f\n", r.Tsp.Format("15:04"), r.Room, r.Temperature)
	}
}

func ExampleClient_AppendToTable() {
	c, _, stop := tableExample()
	defer stop()
	ctx := context.Background()
	res, err := c.AppendToTable(ctx, "sensordata", Reading{Tsp: exampleStart, Temperature: 21.5, Room: "lab"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Args[0])
	// Output: map[success:true]
}

func ExampleClient_PublishToTable() {
	c, _, stop := tableExample()
	defer stop()
	ctx := context.Background()
	// A publish is confirmed by the router, not by the data backend: the
	// table's feed tells when the row is stored.
	stored := make(chan struct{}, 1)
	sub, err := c.SubscribeToTable(ctx, "sensordata", func(context.Context, *client.TableEvent) { stored <- struct{}{} })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Unsubscribe(ctx)
	if err := c.PublishToTable(ctx, "sensordata", Reading{Tsp: exampleStart, Temperature: 19, Room: "hall"}); err != nil {
		fmt.Println(err)
		return
	}
	<-stored
	rows, err := c.GetHistory(ctx, "sensordata", nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	printReadings(rows)
	// Output: 08:00 hall 19.0
}

func ExampleClient_AppendRowsToTable() {
	c, _, stop := tableExample()
	defer stop()
	res, err := c.AppendRowsToTable(context.Background(), "sensordata", []Reading{
		{Tsp: exampleStart, Temperature: 20, Room: "lab"},
		{Tsp: exampleStart.Add(time.Minute), Temperature: 20.5, Room: "lab"},
	})
	fmt.Println(res.Success, res.Count, err)
	// Output: true 2 <nil>
}

func ExampleClient_PublishRowsToTable() {
	c, p, stop := tableExample()
	defer stop()
	ctx := context.Background()
	// The feed announces each stored row of the batch.
	stored := make(chan struct{}, 2)
	sub, err := c.SubscribeToTable(ctx, "sensordata", func(context.Context, *client.TableEvent) { stored <- struct{}{} })
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Unsubscribe(ctx)
	rows := []Reading{{Tsp: exampleStart, Temperature: 18, Room: "hall"}, {Tsp: exampleStart.Add(time.Minute), Temperature: 18.5, Room: "hall"}}
	if err := c.PublishRowsToTable(ctx, "sensordata", rows, client.Kwargs{"batch": "morning"}); err != nil {
		fmt.Println(err)
		return
	}
	<-stored
	<-stored
	fmt.Println("stored", len(p.TableRows(c.Identity().Realm(), "sensordata")), "rows in one insert")
	// Output: stored 2 rows in one insert
}

func ExampleClient_GetHistory() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 20, 21, 22, 23, 24, 25)
	rows, err := c.GetHistory(context.Background(), "sensordata", &client.Query{
		Limit:     2,
		TimeRange: client.Since(exampleStart.Add(time.Minute)),
		FilterAnd: []client.Filter{client.Where("room", "=", "hall")},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The newest two matching rows, in ascending order.
	printReadings(rows)
	// Output:
	// 08:03 hall 23.0
	// 08:05 hall 25.0
}

func ExampleLatest() {
	c, _, stop := tableExample()
	defer stop()
	ctx := context.Background()
	for i, ev := range []struct {
		door string
		open bool
	}{{"front", true}, {"back", true}, {"front", false}} {
		_, _ = c.AppendToTable(ctx, "doors", map[string]any{"tsp": exampleStart.Add(time.Duration(i) * time.Second), "door": ev.door, "open": ev.open})
	}
	// The newest row per door (the table's maintainLatestFlagFor key).
	rows, err := c.GetHistory(ctx, "doors", &client.Query{FilterAnd: []client.Filter{client.Latest()}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		fmt.Println(r["door"], r["open"])
	}
	// Output:
	// back true
	// front false
}

func ExampleOr() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 17, 21, 25, 19)
	rows, err := c.GetHistory(context.Background(), "sensordata", &client.Query{
		FilterAnd: []client.Filter{client.Or(client.Where("temperature", "<", 18), client.Where("temperature", ">=", 25))},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	printReadings(rows)
	// Output:
	// 08:00 lab 17.0
	// 08:02 lab 25.0
}

func ExampleIsNull() {
	c, _, stop := tableExample()
	defer stop()
	ctx := context.Background()
	_, _ = c.AppendToTable(ctx, "sensordata", map[string]any{"tsp": exampleStart, "temperature": 20})
	_, _ = c.AppendToTable(ctx, "sensordata", map[string]any{"tsp": exampleStart.Add(time.Minute), "temperature": 21, "room": "lab"})
	noRoom, _ := c.GetHistory(ctx, "sensordata", &client.Query{FilterAnd: []client.Filter{client.IsNull("room")}})
	withRoom, _ := c.GetHistory(ctx, "sensordata", &client.Query{FilterAnd: []client.Filter{client.IsNotNull("room")}})
	fmt.Println(len(noRoom), len(withRoom))
	// Output: 1 1
}

func ExampleBetween() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 20, 21, 22, 23)
	// [08:01, 08:03): the end is excluded.
	rows, _ := c.GetHistory(context.Background(), "sensordata", &client.Query{TimeRange: client.Between(exampleStart.Add(time.Minute), exampleStart.Add(3*time.Minute))})
	printReadings(rows)
	// Output:
	// 08:01 hall 21.0
	// 08:02 lab 22.0
}

func ExampleClient_GetSeriesHistory() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 20, 22, 24, 26, 28, 30)
	rows, err := c.GetSeriesHistory(context.Background(), "sensordata", client.SeriesQuery{
		Metrics:   []client.Metric{{Ref: "temperature", Method: client.AVG}, {Ref: "temperature", Method: client.MAX}},
		Limit:     10,
		TimeRange: client.TimeRange{Start: exampleStart, End: exampleStart.Add(6 * time.Minute)},
		Bucket:    3 * time.Minute,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range rows {
		at, _ := client.Decode[time.Time](r["tsp"])
		fmt.Println(at.Format("15:04"), r["AVG:temperature"], r["MAX:temperature"])
	}
	// Output:
	// 08:00 22 24
	// 08:03 28 30
}

func ExampleClient_SubscribeToTable() {
	c, p, stop := tableExample()
	defer stop()
	ctx := context.Background()
	// Another device of the project writes; this one reacts in realtime.
	writer := exampleClient(p.Install(p.AddDevice("gateway"), mustApp(p), platformtest.Dev))
	defer writer.Stop(ctx)

	got := make(chan Reading, 4)
	sub, err := c.SubscribeToTable(ctx, "sensordata", func(_ context.Context, ev *client.TableEvent) {
		var r Reading
		if ev.Decode(&r) == nil {
			got <- r
		}
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sub.Unsubscribe(ctx)
	// Rows of a bulk insert arrive one at a time.
	_, _ = writer.AppendRowsToTable(ctx, "sensordata", []Reading{{Tsp: exampleStart, Temperature: 30, Room: "lab"}, {Tsp: exampleStart.Add(time.Second), Temperature: 31, Room: "lab"}})
	for range 2 {
		r := <-got
		fmt.Println(r.Room, r.Temperature)
	}
	// Output:
	// lab 30
	// lab 31
}

// mustApp returns the examples' app of p.
func mustApp(p *platformtest.Platform) *platformtest.App {
	a := p.AppByKey(1)
	if a == nil {
		panic("no app")
	}
	return a
}

func ExampleClient_ReportError() {
	c, _, stop := tableExample()
	defer stop()
	ctx := context.Background()
	_, err := c.ReportError(ctx, errors.New("compressor overheated"),
		client.ErrorLevel(client.LevelWarn), client.UserMessage("The compressor is cooling down"), client.AppendReport(), client.ReportedAt(exampleStart))
	if err != nil {
		fmt.Println(err)
		return
	}
	rows, _ := c.GetHistory(ctx, "error-logs", nil)
	fmt.Println(rows[0]["level"], rows[0]["source"], rows[0]["msg"], "/", rows[0]["user_message"])
	// Output: warn app compressor overheated / The compressor is cooling down
}

func ExampleDecodeRows() {
	rows := []client.Row{{"tsp": int64(1772352000000), "temperature": int64(21), "room": "lab", "device_key": int64(7), "authid": "serial"}}
	readings, err := client.DecodeRows[Reading](rows)
	fmt.Println(readings[0].Tsp.Format(time.RFC3339), readings[0].Temperature, readings[0].Room, err)
	// Output: 2026-03-01T08:00:00Z 21 lab <nil>
}

func ExampleErrUnknownTable() {
	c, _, stop := tableExample()
	defer stop()
	_, err := c.GetHistory(context.Background(), "sensordta", nil) // a typo
	fmt.Println(errors.Is(err, client.ErrUnknownTable))
	// Output: true
}

func ExampleAnd() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 18, 22, 26, 30)
	// And groups conditions, typically inside an Or.
	rows, _ := c.GetHistory(context.Background(), "sensordata", &client.Query{
		FilterAnd: []client.Filter{client.Or(
			client.And(client.Where("room", "=", "lab"), client.Where("temperature", ">", 20)),
			client.Where("temperature", "<", 20),
		)},
	})
	printReadings(rows)
	// Output:
	// 08:00 lab 18.0
	// 08:02 lab 26.0
}

func ExampleSince() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 20, 21, 22)
	rows, _ := c.GetHistory(context.Background(), "sensordata", &client.Query{TimeRange: client.Since(exampleStart.Add(2 * time.Minute))})
	printReadings(rows)
	// Output: 08:02 lab 22.0
}

func ExampleUntil() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 20, 21, 22)
	rows, _ := c.GetHistory(context.Background(), "sensordata", &client.Query{TimeRange: client.Until(exampleStart.Add(time.Minute))})
	printReadings(rows)
	// Output: 08:00 lab 20.0
}

func ExampleWhere() {
	c, _, stop := tableExample()
	defer stop()
	seedReadings(c, 20, 21, 22, 23)
	// Operators are normalised ("in" is sent as "IN"); IN takes a list.
	rows, _ := c.GetHistory(context.Background(), "sensordata", &client.Query{
		FilterAnd: []client.Filter{client.Where("temperature", "in", []float64{21, 23})},
	})
	printReadings(rows)
	// Output:
	// 08:01 hall 21.0
	// 08:03 hall 23.0
}
