//go:build unix

// This file holds the benchmark pair of the generated code: typed against
// untyped appends (one row, and 100 in bulk) and history decoding of the
// same rows, with CPU time and allocations per row. The untyped side is
// what an app writes by hand: structs with json tags, a nested one for the
// column written at args[0].sensor.vibration, and client.DecodeRows.
//
//	go test -run - -bench . -benchmem ./internal/flockgen/golden/all/

package all

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/typed"
)

// untypedWrite is a row of readings as an app writes it by hand.
type untypedWrite struct {
	Tsp         time.Time `json:"tsp"`
	Machine     string    `json:"machine"`
	Temperature float64   `json:"temperature"`
	Sensor      struct {
		Vibration float64 `json:"vibration"`
	} `json:"sensor"`
	Count   int64  `json:"count"`
	Running bool   `json:"running"`
	Label   string `json:"label"`
}

// untypedRead is a row of readings as an app reads it by hand.
type untypedRead struct {
	Tsp          time.Time `json:"tsp"`
	Machine      string    `json:"machine"`
	Temperature  float64   `json:"temperature"`
	VibrationRMS float64   `json:"vibration_rms"`
	Count        int64     `json:"count"`
	Running      bool      `json:"running"`
	Label        string    `json:"label"`
	DeviceKey    int64     `json:"device_key"`
	AuthID       string    `json:"authid"`
}

var benchStart = time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)

func typedRow(i int) ReadingsRow {
	return ReadingsRow{Tsp: benchStart.Add(time.Duration(i) * time.Millisecond), Machine: typed.Ptr("m1"), Temperature: typed.Ptr(21.5),
		VibrationRMS: typed.Ptr(0.25), Count: typed.Ptr(int64(i)), Running: typed.Ptr(true), Label: typed.Ptr("bench")}
}

func untypedRow(i int) untypedWrite {
	w := untypedWrite{Tsp: benchStart.Add(time.Duration(i) * time.Millisecond), Machine: "m1", Temperature: 21.5, Count: int64(i), Running: true, Label: "bench"}
	w.Sensor.Vibration = 0.25
	return w
}

// benchClient starts the app of testdata/all on the fake and a client.
func benchClient(b *testing.B) (*platformtest.Platform, *platformtest.Installation, *client.Client) {
	b.Helper()
	p := platformtest.New(b, platformtest.WithoutRecording())
	inst := p.Install(p.AddDevice("press-1"), p.AddApp("factory", readTemplate(b)), platformtest.Dev)
	c, err := client.New(client.WithEnv(inst.Env()))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Stop(context.Background()) })
	return p, inst, c
}

func BenchmarkAppend(b *testing.B) {
	_, _, c := benchClient(b)
	ctx := context.Background()
	readings := NewReadings(c)
	// The counters outlive a run: -count runs the pair again on the same
	// table, where a tsp may not come twice per machine.
	i, k := 0, 1<<30
	b.Run("typed", func(b *testing.B) {
		measure(b, 1, func() {
			if err := readings.Append(ctx, typedRow(i)); err != nil {
				b.Fatal(err)
			}
			i++
		})
	})
	b.Run("untyped", func(b *testing.B) {
		measure(b, 1, func() {
			if _, err := c.AppendToTable(ctx, "readings", untypedRow(k)); err != nil {
				b.Fatal(err)
			}
			k++
		})
	})
}

func BenchmarkAppendRows(b *testing.B) {
	const batch = 100
	_, _, c := benchClient(b)
	ctx := context.Background()
	readings := NewReadings(c)
	// The counters outlive a run: -count runs the pair again on the same
	// table, where a tsp may not come twice per machine.
	i, k := 0, 1<<30
	b.Run("typed", func(b *testing.B) {
		rows := make([]ReadingsRow, batch)
		measure(b, batch, func() {
			for j := range rows {
				rows[j] = typedRow(i)
				i++
			}
			if _, err := readings.AppendRows(ctx, rows); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("untyped", func(b *testing.B) {
		rows := make([]untypedWrite, batch)
		measure(b, batch, func() {
			for j := range rows {
				rows[j] = untypedRow(k)
				k++
			}
			if _, err := c.AppendRowsToTable(ctx, "readings", rows); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkEncodeRow turns one row into what the client sends, without
// the network: the generated code writes a map the client sends as it is
// (nested, in wire form), where the client encodes a struct by reflection
// (client.Encode is that encoder).
func BenchmarkEncodeRow(b *testing.B) {
	b.Run("typed", func(b *testing.B) {
		i := 0
		measure(b, 1, func() {
			if _, err := encodeReadings(typedRow(i)); err != nil {
				b.Fatal(err)
			}
			i++
		})
	})
	b.Run("untyped", func(b *testing.B) {
		i := 0
		measure(b, 1, func() {
			if _, err := client.Encode(untypedRow(i)); err != nil {
				b.Fatal(err)
			}
			i++
		})
	})
}

// BenchmarkDecodeHistory decodes 1000 rows as GetHistory returned them:
// the generated decoder against client.DecodeRows into a hand-written
// struct of plain fields, and into the generated row type.
func BenchmarkDecodeHistory(b *testing.B) {
	const n = 1000
	p, inst, c := benchClient(b)
	rows := make([]map[string]any, n)
	for i := range rows {
		rows[i] = map[string]any{"tsp": benchStart.Add(time.Duration(i) * time.Second), "machine": "m1", "temperature": 21.5,
			"vibration_rms": 0.25, "count": int64(i), "running": true, "label": "bench"}
	}
	if err := p.InsertRows(inst, "readings", rows...); err != nil {
		b.Fatal(err)
	}
	got, err := c.GetHistory(context.Background(), "readings", &client.Query{Limit: n})
	if err != nil || len(got) != n {
		b.Fatalf("%d rows, %v", len(got), err)
	}
	b.Run("typed", func(b *testing.B) {
		measure(b, n, func() {
			if _, err := decodeReadings(got); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("untyped", func(b *testing.B) {
		measure(b, n, func() {
			if _, err := client.DecodeRows[untypedRead](got); err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("untyped-into-row-type", func(b *testing.B) {
		measure(b, n, func() {
			if _, err := client.DecodeRows[ReadingsRow](got); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// measure runs op in the benchmark loop and reports per row the CPU time
// and the allocations of the whole process (the fake's router and data
// backend, in the same process, do the same work for both sides of a
// pair, so the difference is the client's).
func measure(b *testing.B, rows int, op func()) {
	b.ReportAllocs()
	op() // warm the caches of both sides
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	cpu := processCPU(b)
	for b.Loop() {
		op()
	}
	cpu = processCPU(b) - cpu
	runtime.ReadMemStats(&after)
	n := float64(b.N * rows)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/row")
	b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/row")
}

// processCPU returns the user and system CPU time of the process.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// readTemplate reads the data template the package was generated from.
func readTemplate(b *testing.B) string {
	src, err := os.ReadFile(filepath.Join("..", "..", "testdata", "all", ".ironflock", "data-template.yml"))
	if err != nil {
		b.Fatal(err)
	}
	return string(src)
}
