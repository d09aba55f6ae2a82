package platformtest_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest"
)

// sensorTemplate declares one table, as an app's data-template.yml does.
const sensorTemplate = `
data:
  tables:
    - tablename: sensordata
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: temperature, name: Temperature, dataType: numeric}
  transforms:
    - tablename: hourly
      sql: SELECT time_bucket('1 hour', tsp) AS tsp, avg(temperature) AS avg_temp FROM sensordata GROUP BY 1
      columns:
        - {id: tsp, name: Hour, dataType: timestamp}
        - {id: avg_temp, name: Average, dataType: numeric}
`

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// sensorPlatform starts a platform whose app has sensorTemplate and joins
// a raw client to its realm.
func sensorPlatform(ctx context.Context) (*platformtest.Platform, *platformtest.Installation, *client.Client) {
	p, err := platformtest.Start()
	if err != nil {
		log.Fatal(err)
	}
	in := p.Install(p.AddDevice("sensor-1", platformtest.Key(7)), p.AddApp("weather", sensorTemplate), platformtest.Dev)
	c, err := join(ctx, p, in)
	if err != nil {
		log.Fatal(err)
	}
	return p, in, c
}

// historyOf reads the newest rows of a table or transform, ascending.
func historyOf(ctx context.Context, c *client.Client, table string, query map[string]any) []any {
	res, err := c.Call(ctx, "history.transformed."+table, nil, wamp.List{query}, nil, nil)
	if err != nil {
		log.Fatal(err)
	}
	return res.Arguments[0].([]any)
}

// InsertRows fills a table directly, as if the device had appended the
// rows; the app then reads them with history.transformed.<table>.
func ExamplePlatform_InsertRows() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, in, c := sensorPlatform(ctx)
	defer p.Close()
	defer c.Close()

	err := p.InsertRows(in, "sensordata",
		map[string]any{"tsp": t0, "temperature": 21.5},
		map[string]any{"tsp": "2026-01-01T00:01:00Z", "temperature": 22},
	)
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range historyOf(ctx, c, "sensordata", map[string]any{"limit": 10, "offset": 0, "columns": []any{"temperature"}}) {
		r := row.(map[string]any)
		fmt.Println(r["tsp"], r["temperature"], r["device_key"])
	}
	// Output:
	// 2026-01-01T00:00:00.000Z 21.5 7
	// 2026-01-01T00:01:00.000Z 22 7
}

// TableRows shows what the data backend stored, whatever wrote it.
func ExamplePlatform_TableRows() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, in, c := sensorPlatform(ctx)
	defer p.Close()
	defer c.Close()

	row := map[string]any{"tsp": "2026-01-01T00:00:00Z", "temperature": "19.25"}
	if _, err := c.Call(ctx, "append.1.1.sensordata", nil, wamp.List{row}, wamp.Dict{"DEVICE_KEY": "7"}, nil); err != nil {
		log.Fatal(err)
	}
	for _, r := range p.TableRows(in.Realm(), "sensordata") {
		fmt.Println(r["tsp"], r["temperature"], r["device_key"], r["authid"] == in.Device().Serial())
	}
	// Output:
	// 2026-01-01T00:00:00.000Z 19.25 7 true
}

// RefuseWrites simulates a full disk: appends fail with storage_full until
// writes are accepted again.
func ExamplePlatform_RefuseWrites() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, in, c := sensorPlatform(ctx)
	defer p.Close()
	defer c.Close()

	appendRow := func() error {
		_, err := c.Call(ctx, "append.1.1.sensordata", nil, wamp.List{map[string]any{"tsp": t0}}, nil, nil)
		var rpc client.RPCError
		if errors.As(err, &rpc) {
			return errors.New(string(rpc.Err.Error))
		}
		return err
	}
	p.RefuseWrites(in.Realm(), platformtest.StorageFull)
	fmt.Println("full:", appendRow())
	p.RefuseWrites(in.Realm(), platformtest.AcceptWrites)
	fmt.Println("accepted:", appendRow())
	// Output:
	// full: sys.dataservice.error.storage_full
	// accepted: <nil>
}

// SetChunkBudget makes a small result come in chunks, to exercise a
// client's reassembly.
func ExamplePlatform_SetChunkBudget() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, in, c := sensorPlatform(ctx)
	defer p.Close()
	defer c.Close()

	for i := range 6 {
		if err := p.InsertRows(in, "sensordata", map[string]any{"tsp": t0.Add(time.Duration(i) * time.Minute), "temperature": i}); err != nil {
			log.Fatal(err)
		}
	}
	p.SetChunkBudget(in.Realm(), "sensordata", 250)
	res, err := c.Call(ctx, "history.transformed.sensordata", nil, wamp.List{map[string]any{"limit": 6, "offset": 0}}, nil,
		func(r *wamp.Result) {
			var temps []any
			for _, row := range r.Arguments[1].([]any) {
				temps = append(temps, row.(map[string]any)["temperature"])
			}
			fmt.Println("chunk", r.Arguments[0], temps)
		})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Arguments[0])
	// Output:
	// chunk 0 [5 4]
	// chunk 1 [3 2]
	// chunk 2 [1 0]
	// map[chunkCount:3 chunked:true order:asc totalRows:6]
}

// SetTransformRows supplies the rows of a transform, which the fake cannot
// compute from its SQL.
func ExamplePlatform_SetTransformRows() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	p, in, c := sensorPlatform(ctx)
	defer p.Close()
	defer c.Close()

	err := p.SetTransformRows(in.Realm(), "hourly", []map[string]any{ // newest first, as the SQL orders them
		{"tsp": t0.Add(time.Hour), "avg_temp": 22.5},
		{"tsp": t0, "avg_temp": 21},
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, row := range historyOf(ctx, c, "hourly", map[string]any{"limit": 10, "offset": 0}) {
		fmt.Println(row)
	}
	// Output:
	// map[avg_temp:21 tsp:2026-01-01T00:00:00.000Z]
	// map[avg_temp:22.5 tsp:2026-01-01T01:00:00.000Z]
}
