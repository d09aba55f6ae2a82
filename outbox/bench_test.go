package outbox_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/outbox"
)

// benchRows makes n readings.
func benchRows(n int) []reading {
	rows := make([]reading, n)
	for i := range rows {
		rows[i] = reading{Tsp: t0, N: int64(i), Temp: 21.5}
	}
	return rows
}

// alternate runs both sides b.N times, alternating which goes first so
// that neither always meets a warm cache.
func alternate(b *testing.B, outbox, plain func()) {
	b.ResetTimer()
	for i := range b.N {
		if i%2 == 0 {
			outbox()
			plain()
		} else {
			plain()
			outbox()
		}
	}
	b.StopTimer()
}

// report reports the rows per second of both sides (b.N rounds of round
// rows each) and their ratio, outbox / plain.
func report(b *testing.B, round int, metric string, outbox, plain time.Duration) {
	rows := float64(round * b.N)
	b.ReportMetric(rows/outbox.Seconds(), metric)
	b.ReportMetric(rows/plain.Seconds(), "plain-rows/s")
	b.ReportMetric(plain.Seconds()/outbox.Seconds(), "ratio")
}

// benchAppend times rounds of 200 rows appended batch rows at a time by
// each of writers goroutines, durably through the outbox (its sender
// draining to the fake meanwhile) and, as the baseline in the same run,
// straight to the same fake with a plain AppendRowsToTable loop of the
// same batches. It reports both rates and their ratio (outbox / plain).
func benchAppend(b *testing.B, batch, writers int) {
	const round = 200
	f := newFixture(b)
	ob := f.open(b, "")
	ctx := context.Background()
	rows := benchRows(round)
	var inOutbox, plain time.Duration
	parallel := func(write func(rows []reading) error) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		per := round / writers
		for w := range writers {
			wg.Go(func() {
				mine := rows[w*per : (w+1)*per]
				for i := 0; i < len(mine); i += batch {
					if err := write(mine[i : i+batch]); err != nil {
						errs <- err
						return
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		if err := <-errs; err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	viaOutbox := func() {
		inOutbox += parallel(func(rows []reading) error {
			if len(rows) == 1 {
				_, err := ob.Append(ctx, "readings", rows[0])
				return err
			}
			_, err := ob.AppendRows(ctx, "readings", rows)
			return err
		})
		if err := ob.Flush(ctx); err != nil { // untimed: the next round starts empty
			b.Fatal(err)
		}
	}
	viaClient := func() {
		plain += parallel(func(rows []reading) error {
			_, err := f.c.AppendRowsToTable(ctx, "readings", rows)
			return err
		})
	}
	alternate(b, viaOutbox, viaClient)
	report(b, round, "outbox-rows/s", inOutbox, plain)
}

// BenchmarkAppend: one row per Append (one synced transaction each)
// against one row per AppendRowsToTable call.
//
//	go test -run '^$' -bench 'Append|Drain' ./outbox
func BenchmarkAppend(b *testing.B) { benchAppend(b, 1, 1) }

// BenchmarkAppend8Writers: one row per Append from 8 goroutines at once
// (their appends share transactions and syncs) against 8 goroutines
// calling AppendRowsToTable with one row.
func BenchmarkAppend8Writers(b *testing.B) { benchAppend(b, 1, 8) }

// BenchmarkAppendRows100: 100 rows per AppendRows against 100 rows per
// AppendRowsToTable call.
func BenchmarkAppendRows100(b *testing.B) { benchAppend(b, 100, 1) }

// BenchmarkDrain times how fast the sender delivers 5000 queued rows (a
// directory filled beforehand, opened on a connected client, until Flush
// returns: the start-up lookup, bulk appends of 500 rows, their removal)
// against a plain AppendRowsToTable loop of the same 500-row batches.
func BenchmarkDrain(b *testing.B) {
	const round, batch = 5000, 500
	f := newFixture(b)
	offline := offlineClient(b)
	ctx := context.Background()
	rows := benchRows(round)
	var drain, plain time.Duration
	viaOutbox := func() {
		dir := b.TempDir()
		fill, err := outbox.Open(offline, dir, outbox.WithLogger(quiet))
		if err != nil {
			b.Fatal(err)
		}
		for i := 0; i < round; i += batch {
			if _, err := fill.AppendRows(ctx, "readings", rows[i:i+batch]); err != nil {
				b.Fatal(err)
			}
		}
		if err := fill.Close(); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		ob, err := outbox.Open(f.c, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet), outbox.WithBatch(batch, 1<<20))
		if err != nil {
			b.Fatal(err)
		}
		if err := ob.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		drain += time.Since(start)
		if err := ob.Close(); err != nil {
			b.Fatal(err)
		}
	}
	viaClient := func() {
		start := time.Now()
		for i := 0; i < round; i += batch {
			if _, err := f.c.AppendRowsToTable(ctx, "readings", rows[i:i+batch]); err != nil {
				b.Fatal(err)
			}
		}
		plain += time.Since(start)
	}
	alternate(b, viaOutbox, viaClient)
	report(b, round, "drain-rows/s", drain, plain)
}
