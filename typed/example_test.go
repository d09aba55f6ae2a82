// This file holds the runnable examples of package typed, against the
// fake platform. The row type, columns and schema below are what
// cmd/flockgen generates for the table; an app would not write them.

package typed_test

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/typed"
)

const exampleTemplate = `
data:
  tables:
    - tablename: readings
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: machine, dataType: string}
        - {id: temperature, dataType: numeric}
        - {id: vibration, dataType: numeric, path: "args[0].sensor.vibration"}
`

// ReadingsRow is a row of the table readings.
type ReadingsRow struct {
	Tsp         time.Time `json:"tsp"`
	Machine     *string   `json:"machine,omitempty"`
	Temperature *float64  `json:"temperature,omitempty"`
	Vibration   *float64  `json:"vibration,omitempty"`
}

// Readings holds its columns.
var Readings = struct {
	Machine     typed.StringColumn[ReadingsRow]
	Temperature typed.NumberColumn[ReadingsRow, float64]
}{
	Machine:     typed.NewStringColumn[ReadingsRow]("machine"),
	Temperature: typed.NewNumberColumn[ReadingsRow, float64]("temperature"),
}

var schemaReadings = &typed.Schema[ReadingsRow]{
	Table: "readings",
	Encode: func(r ReadingsRow) (typed.Message, error) {
		var m typed.Message
		row := m.Row(3)
		tsp, err := typed.EncodeTsp(r.Tsp)
		if err != nil {
			return m, err
		}
		row["tsp"] = tsp
		if r.Machine != nil {
			row["machine"] = *r.Machine
		}
		if r.Temperature != nil {
			row["temperature"] = *r.Temperature
		}
		if r.Vibration != nil {
			m.Set([]string{"args", "0", "sensor", "vibration"}, *r.Vibration)
		}
		return m, nil
	},
	Decode: func(rows []client.Row) ([]ReadingsRow, error) {
		return client.DecodeRows[ReadingsRow](rows) // generated code decodes without reflection
	},
}

// exampleClient starts a fake platform with the app on a device and
// returns a started client of it; stop ends both.
func exampleClient() (*client.Client, func()) {
	p, err := platformtest.Start()
	if err != nil {
		panic(err)
	}
	inst := p.Install(p.AddDevice("press-1"), p.AddApp("factory", exampleTemplate), platformtest.Dev)
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		panic(err)
	}
	if err := c.Start(context.Background()); err != nil {
		panic(err)
	}
	return c, func() {
		_ = c.Stop(context.Background())
		p.Close()
	}
}

func Example() {
	c, stop := exampleClient()
	defer stop()
	ctx := context.Background()

	readings := typed.NewTable(c, schemaReadings)
	start := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var rows []ReadingsRow
	for i, m := range []string{"m1", "m2", "m1", "m2"} {
		rows = append(rows, ReadingsRow{Tsp: start.Add(time.Duration(i) * time.Minute), Machine: typed.Ptr(m),
			Temperature: typed.Ptr(20 + float64(i)), Vibration: typed.Ptr(0.1 * float64(i+1))})
	}
	if _, err := readings.AppendRows(ctx, rows); err != nil {
		panic(err)
	}

	// The newest row per machine, of those warmer than 20.5 °C.
	got, err := readings.History(ctx, &typed.Query[ReadingsRow]{
		Where: Readings.Temperature.Gt(20.5).And(typed.Latest[ReadingsRow]()),
	})
	if err != nil {
		panic(err)
	}
	for _, r := range got {
		fmt.Printf("%s %s %.1f °C vibration %.1f\n", r.Tsp.Format("15:04"), *r.Machine, *r.Temperature, *r.Vibration)
	}

	// Two-minute averages.
	avg := Readings.Temperature.Avg()
	series, err := readings.Series(ctx, typed.SeriesQuery[ReadingsRow]{
		Metrics:   []typed.Measure[ReadingsRow]{avg},
		Limit:     10,
		TimeRange: client.TimeRange{Start: start, End: start.Add(4 * time.Minute)},
		Bucket:    2 * time.Minute,
	})
	if err != nil {
		panic(err)
	}
	for _, b := range series {
		v, _ := avg.Of(b)
		fmt.Printf("%s average %.1f °C\n", b.Tsp.Format("15:04"), v)
	}
	// Output:
	// 09:02 m1 22.0 °C vibration 0.3
	// 09:03 m2 23.0 °C vibration 0.4
	// 09:00 average 20.5 °C
	// 09:02 average 22.5 °C
}
