package platformtest

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// allocTemplate is the table of the append benchmarks: the row of
// flocksim's scenarios (a timestamp, a counter, a number).
const allocTemplate = `
data:
  tables:
    - tablename: samples
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: seq, name: Seq, dataType: bigint}
        - {id: value, name: Value, dataType: numeric}
`

// BenchmarkAppendAllocs measures what one acknowledged append costs the
// process in allocations (bytes and objects per append, the platform's
// and the SDK client's, one append at a time), for each of the platform's
// stores: in memory, a data folder, and PostgreSQL beside a data folder
// (with IRONFLOCK_TEST_POSTGRES). The garbage they make is what paces
// flockd's collector under a fleet's appends (docs/performance.md). The
// baseline, devicefn, is a call of the same size through the same
// platform to a device function another SDK client serves: the routing of
// a call and its answer, with no store behind it.
func BenchmarkAppendAllocs(b *testing.B) {
	type variant struct {
		name string
		opts func(b *testing.B) []Option
	}
	variants := []variant{
		{"memory", func(*testing.B) []Option { return nil }},
		{"datadir", func(b *testing.B) []Option { return []Option{WithDataDir(filepath.Join(b.TempDir(), "data"))} }},
	}
	if url := storetest.PostgresURL(b); url != "" {
		variants = append(variants, variant{"datadir+pg", func(b *testing.B) []Option {
			return []Option{WithDataDir(filepath.Join(b.TempDir(), "data")), WithPostgres(url, PostgresScratch())}
		}})
	}
	b.Run("devicefn", func(b *testing.B) {
		p, in := allocPlatform(b, nil)
		served := startAllocClient(b, p.Install(p.AddDevice("server"), in.App(), Dev))
		if _, err := served.RegisterDeviceFunction(context.Background(), "echo", func(context.Context, *client.Invocation) (any, error) {
			return map[string]any{"success": true}, nil
		}); err != nil {
			b.Fatal(err)
		}
		c, key := startAllocClient(b, in), served.Identity().DeviceKey
		measureAllocs(b, func(i int) error {
			_, err := c.CallDeviceFunction(context.Background(), key, "echo", allocRow(i))
			return err
		})
	})
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			_, in := allocPlatform(b, v.opts(b))
			c := startAllocClient(b, in)
			measureAllocs(b, func(i int) error {
				_, err := c.AppendToTable(context.Background(), "samples", allocRow(i))
				return err
			})
		})
	}
	// The table's feed has a subscriber (which is not counted: the feed is
	// published only while one is subscribed, and memory above is without).
	b.Run("memory+subscriber", func(b *testing.B) {
		p, in := allocPlatform(b, nil)
		c := startAllocClient(b, in)
		sub := startAllocClient(b, p.Install(p.AddDevice("board"), in.App(), Dev))
		seen := make(chan struct{}, 1)
		if _, err := sub.SubscribeToTable(context.Background(), "samples", func(context.Context, *client.TableEvent) {
			select {
			case seen <- struct{}{}:
			default:
			}
		}); err != nil {
			b.Fatal(err)
		}
		measureAllocs(b, func(i int) error {
			_, err := c.AppendToTable(context.Background(), "samples", allocRow(i))
			return err
		})
		b.StopTimer()
		select {
		case <-seen:
		default:
			b.Fatal("the subscriber got no row")
		}
	})
}

// allocPlatform starts a platform with opts and one installation of an
// app with allocTemplate.
func allocPlatform(b *testing.B, opts []Option) (*Platform, *Installation) {
	b.Helper()
	p, err := Start(append([]Option{WithoutRecording(), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))}, opts...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	return p, p.Install(p.AddDevice("meter"), p.AddApp("meter", allocTemplate), Dev)
}

// startAllocClient starts an SDK client of in, stopped when b ends.
func startAllocClient(b *testing.B, in *Installation) *client.Client {
	b.Helper()
	c, err := client.New(client.WithEnv(in.Env()))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Stop(context.Background()) })
	return c
}

// allocRow is the i-th row of the benchmarks.
func allocRow(i int) map[string]any {
	return map[string]any{"tsp": time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond),
		"seq": i, "value": 42.5}
}

// measureAllocs runs op b.N times, one at a time, after 100 rounds that
// warm the paths up, and reports the allocations per op.
func measureAllocs(b *testing.B, op func(int) error) {
	for i := range 100 {
		if err := op(-1 - i); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		if err := op(i); err != nil {
			b.Fatal(err)
		}
	}
}
