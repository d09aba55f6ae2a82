// This file holds the benchmarks of the table operations, each against a
// raw nexus client doing the same on the same router.

package client_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func benchTableFleet(b *testing.B) (*platformtest.Platform, *platformtest.Installation, *platformtest.Installation) {
	p := platformtest.New(b)
	app := p.AddApp("bench", sensorTemplate)
	return p, p.Install(p.AddDevice("a"), app, platformtest.Dev), p.Install(p.AddDevice("b"), app, platformtest.Dev)
}

func benchSensorRow(i int) map[string]any {
	return map[string]any{"tsp": t0.Add(time.Duration(i) * time.Millisecond), "temperature": 21.5, "n": i, "source": "bench"}
}

// BenchmarkPublishToTable compares PublishToTable (table name check, row
// conversion, metadata, acknowledged publish the data backend then stores)
// with a raw nexus acknowledged publish of the same row to the same topic.
func BenchmarkPublishToTable(b *testing.B) {
	p, inst, _ := benchTableFleet(b)
	ctx := context.Background()
	topic := inst.Env()["SWARM_KEY"] + "." + inst.Env()["APP_KEY"] + ".sensordata"
	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, inst)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if err := c.PublishToTable(ctx, "sensordata", benchSensorRow(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("nexus", func(b *testing.B) {
		nc := rawNexus(b, p, inst)
		meta := wamp.Dict{"DEVICE_SERIAL_NUMBER": inst.Device().Serial(), "DEVICE_KEY": "1", "DEVICE_NAME": "a"}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			row := benchSensorRow(i)
			row["tsp"] = row["tsp"].(time.Time).Format(time.RFC3339Nano)
			if err := nc.Publish(topic, wamp.Dict{wamp.OptAcknowledge: true}, wamp.List{row}, meta); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkAppendToTable compares AppendToTable (a call the data backend
// answers once the row is stored) with a raw nexus call of the same payload
// to a callee that does nothing: the cost of the SDK plus the fake's write
// path over the bare round trip.
func BenchmarkAppendToTable(b *testing.B) {
	p, inst, calleeInst := benchTableFleet(b)
	ctx := context.Background()
	b.Run("sdk", func(b *testing.B) {
		c := benchClient(b, inst)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if _, err := c.AppendToTable(ctx, "sensordata", benchSensorRow(i)); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("nexus-noop", func(b *testing.B) {
		callee := benchClient(b, calleeInst)
		reg, err := callee.RegisterDeviceFunction(ctx, "noop", func(context.Context, *client.Invocation) (any, error) {
			return map[string]any{"success": true}, nil
		})
		if err != nil {
			b.Fatal(err)
		}
		nc := rawNexus(b, p, inst)
		meta := wamp.Dict{"DEVICE_SERIAL_NUMBER": inst.Device().Serial(), "DEVICE_KEY": "1", "DEVICE_NAME": "a"}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			row := benchSensorRow(i)
			row["tsp"] = row["tsp"].(time.Time).Format(time.RFC3339Nano)
			if _, err := nc.Call(ctx, reg.Procedure(), nil, wamp.List{row}, meta, nil); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkGetHistory reads 100 rows with a time range from a table of 1k
// and of 1M rows: the read costs what it returns, not the table size.
func BenchmarkGetHistory(b *testing.B) {
	for _, size := range []int{1_000, 1_000_000} {
		b.Run("rows="+strconv.Itoa(size), func(b *testing.B) {
			p, inst, _ := benchTableFleet(b)
			const batch = 10_000
			rows := make([]map[string]any, 0, batch)
			for i := 0; i < size; i++ {
				rows = append(rows, map[string]any{"tsp": t0.Add(time.Duration(i) * time.Second).UnixMilli(), "temperature": float64(i % 50), "n": i})
				if len(rows) == batch || i == size-1 {
					if err := p.InsertRows(inst, "sensordata", rows...); err != nil {
						b.Fatal(err)
					}
					rows = rows[:0]
				}
			}
			c := benchClient(b, inst)
			ctx := context.Background()
			mid := t0.Add(time.Duration(size/2) * time.Second)
			q := &client.Query{Limit: 100, TimeRange: client.Between(mid, mid.Add(time.Hour))}
			b.ReportAllocs()
			for b.Loop() {
				got, err := c.GetHistory(ctx, "sensordata", q)
				if err != nil {
					b.Fatal(err)
				}
				if len(got) != 100 {
					b.Fatalf("got %d rows", len(got))
				}
			}
		})
	}
}
