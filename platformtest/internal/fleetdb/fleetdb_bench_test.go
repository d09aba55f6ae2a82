package fleetdb_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// The benchmarks of the data backend's stores, through the wire as a
// device calls them, one sub-benchmark per store of the conformance
// suite (storetest.Kinds), so that a run compares them on the same machine.
// A PostgreSQL table loaded for a benchmark is vacuumed and analysed
// first (settle), as autovacuum does to a table that filled over time:
//
//	go test -run '^$' -bench 'Store' -benchtime 20x ./platformtest/internal/fleetdb/
//
// docs/performance.md shows the figures.

// benchTemplate is the table of the benchmarks.
const benchTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temperature, dataType: numeric}
        - {id: n, dataType: bigint}
        - {id: source, dataType: string}
`

// benchWorld is a platform of a store with the benchmark's table holding
// rows rows (one per second from t0), and a raw client.
type benchWorld struct {
	p *platformtest.Platform
	c *client.Client
}

func newBenchWorld(b *testing.B, s worldtest.Store[platformtest.Option], rows int) *benchWorld {
	b.Helper()
	p, err := platformtest.Start(append([]platformtest.Option{platformtest.WithStartTime(worldtest.T0.Add(time.Duration(rows) * time.Second))}, s.Options(b)...)...)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(p.Close)
	pr := p.AddProject("plant", platformtest.Key(2))
	in := p.Install(pr.AddDevice("press", platformtest.Key(42)), p.AddApp("bench", benchTemplate, platformtest.Key(26)), platformtest.Dev)
	const batch = 50000
	for i := 0; i < rows; i += batch {
		rs := make([]map[string]any, min(batch, rows-i))
		for j := range rs {
			n := i + j
			rs[j] = map[string]any{"tsp": worldtest.Ms(time.Duration(n) * time.Second), "temperature": 20 + float64(n%100)/10, "n": n, "source": "bench"}
		}
		if err := p.InsertRows(in, "readings", rs...); err != nil {
			b.Fatal(err)
		}
	}
	if s.Kind == storetest.Postgres && rows > 0 {
		settle(b, p, in.Realm())
	}
	id, secret := in.Credentials()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cfg := worldtest.DialConfig(in.Realm(), id, secret, client.MSGPACK)
	cfg.Logger = log.New(io.Discard, "", 0)
	c, err := client.ConnectNet(ctx, p.URL(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })
	return &benchWorld{p: p, c: c}
}

// settle brings a realm's table just loaded in bulk where autovacuum
// brings a table that filled over time (its planner statistics and
// visibility map, VACUUM ANALYZE), as the test database's owner.
func settle(b *testing.B, p *platformtest.Platform, realm string) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	reader, err := p.SQLURL(realm)
	if err != nil {
		b.Fatal(err)
	}
	rc, err := pgx.Connect(ctx, reader)
	if err != nil {
		b.Fatal(err)
	}
	defer rc.Close(ctx)
	var schema string
	if err := rc.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		b.Fatal(err)
	}
	admin, err := pgx.Connect(ctx, storetest.PostgresURL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "VACUUM ANALYZE "+pgx.Identifier{schema, "readings"}.Sanitize()); err != nil {
		b.Fatal(err)
	}
}

// call calls uri with args [arg] and fails the benchmark on an error.
func (w *benchWorld) call(b *testing.B, uri string, arg any) wamp.List {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := w.c.Call(ctx, uri, nil, wamp.List{arg}, nil, nil)
	if err != nil {
		b.Fatalf("%s: %v", uri, err)
	}
	return r.Arguments
}

// eachBenchStore runs body as a sub-benchmark per store.
func eachBenchStore(b *testing.B, body func(b *testing.B, s worldtest.Store[platformtest.Option])) {
	for _, k := range storetest.Kinds(b) {
		s := backends.Store(b, k)
		b.Run("store="+string(k), func(b *testing.B) { body(b, s) })
	}
}

// BenchmarkStoreHistory reads the newest 1,000 rows of 1,000,000.
func BenchmarkStoreHistory(b *testing.B) {
	eachBenchStore(b, func(b *testing.B, s worldtest.Store[platformtest.Option]) {
		w := newBenchWorld(b, s, 1_000_000)
		query := map[string]any{"limit": 1000, "offset": 0}
		b.ResetTimer()
		for b.Loop() {
			if rows := w.call(b, "history.transformed.readings", query)[0].([]any); len(rows) != 1000 {
				b.Fatalf("%d rows", len(rows))
			}
		}
	})
}

// BenchmarkStoreSeries averages 1,000,000 rows into 100 buckets.
func BenchmarkStoreSeries(b *testing.B) {
	eachBenchStore(b, func(b *testing.B, s worldtest.Store[platformtest.Option]) {
		const rows = 1_000_000
		w := newBenchWorld(b, s, rows)
		query := map[string]any{"metrics": []any{map[string]any{"ref": "temperature", "method": "AVG"}}, "limit": 100,
			"timeRange": []any{worldtest.Ms(0), worldtest.Ms(rows * time.Second)}}
		b.ResetTimer()
		for b.Loop() {
			if got := w.call(b, "history.transformed.series.readings", query)[0].([]any); len(got) != 100 {
				b.Fatalf("%d buckets", len(got))
			}
		}
	})
}

// BenchmarkStoreBulkAppend appends 10,000 rows in one appendBulk call.
func BenchmarkStoreBulkAppend(b *testing.B) {
	eachBenchStore(b, func(b *testing.B, s worldtest.Store[platformtest.Option]) {
		w := newBenchWorld(b, s, 0)
		const n = 10_000
		batch := func(k int) []any {
			rows := make([]any, n)
			for i := range rows {
				rows[i] = map[string]any{"tsp": worldtest.Ms(time.Duration(k*n+i) * time.Millisecond), "temperature": 21.5, "n": i, "source": "bench"}
			}
			return rows
		}
		k := 0
		b.ResetTimer()
		for b.Loop() {
			b.StopTimer()
			rows := batch(k)
			k++
			b.StartTimer()
			res := w.call(b, "appendBulk.2.26.readings", rows)
			if fmt.Sprint(res[0].(map[string]any)["count"]) != fmt.Sprint(n) {
				b.Fatalf("answer %v", res)
			}
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
