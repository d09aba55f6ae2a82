package datadir

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ceilingTrip is the round trip of BenchmarkDiskCeiling's writers outside
// the store. Set it so that the benchmark's none rate is the in-memory rate
// of BenchmarkAppend16 on the same machine: the default gives about 24,000
// writes/s on the machine of docs/performance.md (the delay line adds about 200 µs
// to each trip), where flockd in memory took 20,000-25,000 appends/s.
var ceilingTrip = flag.Duration("ceiling.trip", 450*time.Microsecond, "BenchmarkDiskCeiling: the writers' round trip outside the store")

// BenchmarkDiskCeiling shows what the disk of the temporary folder allows
// an acknowledged append with 16 in flight, whatever the software: 16
// writers each alternate a round trip that costs no CPU (a delayLine of
// ceilingTrip, standing for the trip through the router) and a
// durable write of a 150-byte row, in three ways, in alternating rounds
// of 2 s:
//
//   - none: no write, the in-memory rate;
//   - group: DB.Update, the folder's group commit over bbolt (two
//     fdatasyncs per commit: the pages, then the meta page naming them);
//   - log: the least any store that syncs before it answers must do: the
//     waiting rows appended to a preallocated file with one write and one
//     fdatasync per group, the next group gathering during the sync.
//
// It reports the median rates and per-round ratios to none. Issue 23 asks
// flockd's appends with a data folder for 0.7 × its in-memory rate: what
// group and log reach here is the most a store that syncs before it
// answers can give on this disk, before the CPU of flockd's own trip
// through the router, which the writers here do not spend. Run it
// alone: go test -run - -bench DiskCeiling -benchtime 1x
// ./platformtest/internal/datadir [-ceiling.trip 450us].
func BenchmarkDiskCeiling(b *testing.B) {
	const rounds, round = 3, 2 * time.Second
	for range b.N {
		d, err := Open(filepath.Join(b.TempDir(), "data"))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = d.Close() })
		db, err := d.DB("ceiling")
		if err != nil {
			b.Fatal(err)
		}
		log := newSyncLog(b, filepath.Join(b.TempDir(), "rows.log"))
		row := make([]byte, 150)
		ctx := context.Background()
		modes := []struct {
			name  string
			write func(n uint64) error
		}{
			{"none", nil},
			{"group", func(n uint64) error {
				return db.Update(ctx, func(tx *bolt.Tx) error {
					bk, err := tx.CreateBucketIfNotExists([]byte("rows"))
					if err != nil {
						return err
					}
					return bk.Put(binary.BigEndian.AppendUint64(nil, n), row)
				})
			}},
			{"log", func(n uint64) error { return log.write(binary.BigEndian.AppendUint64(nil, n), row) }},
		}
		rates, ratios := make([][]float64, len(modes)), make([][]float64, len(modes))
		for r := range rounds {
			line := ""
			for i, m := range modes {
				rate := closedLoop(b, round, *ceilingTrip, m.write)
				rates[i] = append(rates[i], rate)
				line += fmt.Sprintf("%s %.0f writes/s", m.name, rate)
				if i > 0 {
					ratios[i] = append(ratios[i], rate/rates[0][r])
					line += fmt.Sprintf(" (%.2f ×)", rate/rates[0][r])
				}
				line += "; "
			}
			b.Log(line)
		}
		for i, m := range modes {
			b.ReportMetric(median(rates[i]), m.name+"-writes/s")
			if i > 0 {
				b.ReportMetric(median(ratios[i]), m.name+"/none")
			}
		}
	}
}

// median returns the median of xs.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// closedLoop runs 16 writers for d, each alternating a round trip of
// trip (through a delayLine) and write (none when nil), and returns the
// writes per second.
func closedLoop(b *testing.B, d, trip time.Duration, write func(n uint64) error) float64 {
	line := newDelayLine(trip)
	defer line.stop()
	var n atomic.Uint64
	var wg sync.WaitGroup
	start := time.Now()
	for range 16 {
		wg.Go(func() {
			back := make(chan struct{}, 1)
			for time.Since(start) < d {
				line.in <- back
				<-back
				k := n.Add(1)
				if write != nil {
					if err := write(k); err != nil {
						b.Error(err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds()
}

// delayLine sends each channel it is given back a signal trip after it
// came, in order: one goroutine times them all with nanosleep, precise to
// some microseconds where the runtime's timers round a wait under a
// millisecond up to one, and the writers wait on their channels, so that
// none holds a P while it waits (a goroutine in a blocking system call
// keeps its P until sysmon takes it back, which staggers the writers).
type delayLine struct {
	trip time.Duration
	in   chan chan struct{}
	done chan struct{}
}

func newDelayLine(trip time.Duration) *delayLine {
	l := &delayLine{trip: trip, in: make(chan chan struct{}, 64), done: make(chan struct{})}
	go l.run()
	return l
}

// run gives each channel its signal at its due time.
func (l *delayLine) run() {
	defer close(l.done)
	type entry struct {
		due  time.Time
		back chan struct{}
	}
	var queue []entry
	for {
		if len(queue) == 0 {
			back, ok := <-l.in
			if !ok {
				return
			}
			queue = append(queue, entry{time.Now().Add(l.trip), back})
		}
	take: // the channels that came meanwhile, stamped as they are taken
		for {
			select {
			case back, ok := <-l.in:
				if !ok {
					return
				}
				queue = append(queue, entry{time.Now().Add(l.trip), back})
			default:
				break take
			}
		}
		if wait := time.Until(queue[0].due); wait > 0 {
			ts := syscall.NsecToTimespec(min(wait, 50*time.Microsecond).Nanoseconds())
			_ = syscall.Nanosleep(&ts, nil)
			continue
		}
		queue[0].back <- struct{}{}
		queue = queue[1:]
	}
}

// stop ends the line's goroutine.
func (l *delayLine) stop() {
	close(l.in)
	<-l.done
}

// syncLog appends the rows of waiting writers to a preallocated file with
// one write and one fdatasync per group: the least a store that syncs
// before it answers does per commit.
type syncLog struct {
	f    *os.File
	reqs chan logWrite
}

type logWrite struct {
	rec  []byte
	done chan error
}

// syncLogSize is the preallocated size of a syncLog's file; the records
// wrap around to its start, as a recycled log file does.
const syncLogSize = 16 << 20

// newSyncLog creates the file at path, writes it whole and syncs it (so
// that a later fdatasync flushes data only, no size or extent change), and
// starts its writer.
func newSyncLog(b *testing.B, path string) *syncLog {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for range syncLogSize / len(zeros) {
		if _, err := f.Write(zeros); err != nil {
			b.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	l := &syncLog{f: f, reqs: make(chan logWrite, 64)}
	done := make(chan struct{})
	go l.run(done)
	b.Cleanup(func() {
		close(l.reqs)
		<-done
		_ = f.Close()
	})
	return l
}

// write appends key and value as one record and returns once it is
// synced.
func (l *syncLog) write(key, value []byte) error {
	w := logWrite{rec: append(key, value...), done: make(chan error, 1)}
	l.reqs <- w
	return <-w.done
}

// run is the log's writer: it takes the waiting records, writes them at
// the end of what it wrote (wrapping around the preallocated file), syncs
// and answers them.
func (l *syncLog) run(done chan<- struct{}) {
	defer close(done)
	var buf []byte
	var batch []logWrite
	off := int64(0)
	for w := range l.reqs {
		batch = append(batch[:0], w)
	gather:
		for {
			select {
			case w, ok := <-l.reqs:
				if !ok {
					break gather
				}
				batch = append(batch, w)
			default:
				break gather
			}
		}
		buf = buf[:0]
		for _, w := range batch {
			buf = append(buf, w.rec...)
		}
		if off+int64(len(buf)) > syncLogSize {
			off = 0
		}
		_, err := l.f.WriteAt(buf, off)
		off += int64(len(buf))
		if err == nil {
			err = syscall.Fdatasync(int(l.f.Fd()))
		}
		for _, w := range batch {
			w.done <- err
		}
	}
}
