package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// benchConfig is the world of the data folder's benchmarks: the row of
// flockbench (about 100 bytes of msgpack) with its tsp, in one table.
const benchConfig = `projects:
  - name: bench
    devices: [{name: press}]
apps:
  - name: bench
    data_template: |
      data:
        tables:
          - tablename: readings
            columns:
              - {id: tsp, name: T, dataType: timestamp}
              - {id: temperature, name: Temperature, dataType: numeric}
              - {id: humidity, name: Humidity, dataType: bigint}
              - {id: pressure, name: Pressure, dataType: numeric}
              - {id: source, name: Source, dataType: string}
              - {id: sensor, name: Sensor, dataType: string}
              - {id: seq, name: Seq, dataType: bigint}
              - {id: ok, name: OK, dataType: boolean}
installations:
  - {project: bench, device: press, app: bench}
`

// benchRow is the row of flockbench with tsp and seq n.
func benchRow(n int64) map[string]any {
	return map[string]any{"tsp": 1_700_000_000_000 + n, "temperature": 21.5, "humidity": int64(40), "pressure": 1013.25,
		"source": "bench", "sensor": "greenhouse-3", "seq": n, "ok": true}
}

// BenchmarkAppend16 measures acknowledged appends with 16 in flight (one
// client, 16 goroutines) against three flockd children: one in memory,
// one with a data folder on the disk of the temporary folder, and one with
// a data folder on tmpfs (/dev/shm, whose fdatasync costs nothing), in
// alternating rounds of 2 s (5 rounds, so that the machine's load weighs
// on all alike). It reports the median rates, the medians of the
// per-round ratios to the in-memory rate (the issue asks the data folder
// for at least 0.7 ×), and the median CPU each flockd spent per append:
// the tmpfs ratio and CPU are what the software costs, the gap between
// disk and tmpfs what the disk's syncs cost. Run it alone: go test -run -
// -bench Append16 -benchtime 1x ./cmd/flockd.
func BenchmarkAppend16(b *testing.B) {
	const rounds, round = 5, 2 * time.Second
	for range b.N {
		servers := startBenchChildren(b, []namedArgs{
			{"memory", []string{"-memory", "-memory-rows", "0"}},
			{"datadir", []string{"-data", filepath.Join(b.TempDir(), "data")}},
			{"tmpfs", []string{"-data", filepath.Join(shmDir(b), "data")}},
		})
		rates, ratios, cpus := make([][]float64, len(servers)), make([][]float64, len(servers)), make([][]float64, len(servers))
		for r := range rounds {
			line := fmt.Sprintf("round %d:", r+1)
			for i, s := range servers {
				rate, cpu, _ := s.round(b, r, round)
				rates[i], cpus[i] = append(rates[i], rate), append(cpus[i], cpu)
				line += fmt.Sprintf(" %s %.0f appends/s, %.0f µs CPU each", s.name, rate, cpu)
				if i > 0 {
					ratios[i] = append(ratios[i], rate/rates[0][r])
					line += fmt.Sprintf(" (%.2f ×)", rate/rates[0][r])
				}
				line += ";"
			}
			b.Log(line)
		}
		for i, s := range servers {
			b.ReportMetric(median(rates[i]), s.name+"-appends/s")
			b.ReportMetric(median(cpus[i]), s.name+"-cpu-µs/append")
			if i > 0 {
				b.ReportMetric(median(ratios[i]), s.name+"/memory")
			}
		}
	}
}

// cpuTime returns the CPU time (user and system) a process has spent.
func cpuTime(tb testing.TB, pid int) time.Duration {
	tb.Helper()
	d, err := procCPU(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return d
}

// procCPU reads the CPU time (user and system) a process has spent from
// /proc/PID/stat, whose clock ticks are 1/100 s on Linux (USER_HZ).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	_, rest, _ := strings.Cut(string(b), ") ") // the command name may hold spaces
	fields := strings.Fields(rest)             // from field 3 (state) on
	if len(fields) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %q", pid, b)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, nil
}

// shmDir returns a new folder on tmpfs (/dev/shm), removed when the
// benchmark ends.
func shmDir(b *testing.B) string {
	b.Helper()
	dir, err := os.MkdirTemp("/dev/shm", "flockd-bench-")
	if err != nil {
		b.Fatalf("a folder on tmpfs: %v", err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

// appendRate appends rows through c with 16 in flight for d and returns
// the acknowledged appends per second and their number; seq numbers the
// rows from base.
func appendRate(b *testing.B, c *client.Client, proc string, d time.Duration, base int64) (float64, int64) {
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range 16 {
		wg.Go(func() {
			for time.Since(start) < d {
				row := benchRow(base + n.Add(1))
				if _, err := c.Call(context.Background(), proc, nil, wamp.List{row}, nil, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return float64(n.Load()) / time.Since(start).Seconds(), n.Load()
}

// median returns the median of xs.
func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// benchServer starts a flockd child with args and returns a client of its
// installation, the append procedure of its table and the child's pid.
func benchServer(tb testing.TB, args []string) (*client.Client, string, int) {
	tb.Helper()
	envPath := filepath.Join(tb.TempDir(), "env.json")
	ch := startChild(tb, append(args, "-env-file", envPath))
	f := readEnvFile(tb, envPath)
	return joinWithEnv(tb, f.WSURL, f.Installations[0].Env), appendProc(f, "readings", false), ch.cmd.Process.Pid
}

// namedArgs are the arguments of one flockd child of a benchmark.
type namedArgs struct {
	name string
	args []string
}

// benchChild is a flockd child of a benchmark: a client of its
// installation, the append procedure of its table and its pid.
type benchChild struct {
	name string
	c    *client.Client
	proc string
	pid  int
}

// round runs round r of a benchmark on s for d: the appends' rate, the
// CPU s spent per append (µs) and how many appends were acknowledged.
func (s benchChild) round(b *testing.B, r int, d time.Duration) (rate, cpu float64, n int64) {
	b.Helper()
	before := cpuTime(b, s.pid)
	rate, n = appendRate(b, s.c, s.proc, d, int64(r)*10_000_000)
	return rate, float64((cpuTime(b, s.pid) - before).Microseconds()) / float64(n), n
}

// startBenchChildren starts a flockd child with benchConfig (no recording,
// no console) and each entry's arguments.
func startBenchChildren(b *testing.B, servers []namedArgs) []benchChild {
	b.Helper()
	cfg := writeConfig(b, b.TempDir(), benchConfig)
	common := []string{"-listen", "127.0.0.1:0", "-config", cfg, "-no-record", "-no-console"}
	out := make([]benchChild, len(servers))
	for i, s := range servers {
		out[i].name = s.name
		out[i].c, out[i].proc, out[i].pid = benchServer(b, append(slices.Clone(common), s.args...))
	}
	return out
}

// BenchmarkMillionRows stores 1,000,000 rows in a flockd child with a
// data folder, through appendBulk in batches of 1000 (4 in flight), and
// reports: the resident memory (VmRSS, and its anonymous and file-mapped
// parts) of the flockd empty, after 10,000 rows and after the million (the
// Go heap grows with the load's batches in flight, not with the rows
// kept; BenchmarkMillionRowsHeap shows the heap after a collection); the time a restart over
// the folder takes until a device joins and a history read answers, and
// the resident memory after it; the disk the folder takes per row
// against the row's msgpack size (as a history read returns it). Run it
// alone: go test -run - -bench MillionRows -benchtime 1x ./cmd/flockd.
func BenchmarkMillionRows(b *testing.B) {
	const rows, few, batch = 1_000_000, 10_000, 1000
	for range b.N {
		dir := b.TempDir()
		data := filepath.Join(dir, "data")
		config := writeConfig(b, dir, benchConfig)
		envPath := filepath.Join(dir, "env.json")
		args := []string{"-listen", "127.0.0.1:0", "-config", config, "-data", data, "-env-file", envPath, "-no-record", "-no-console"}

		empty := startChild(b, args)
		f := readEnvFile(b, envPath)
		c := joinWithEnv(b, f.WSURL, f.Installations[0].Env)
		bulk := appendProc(f, "readings", true)
		historyOnce(b, c)
		rssEmpty := rss(b, empty.cmd.Process.Pid)

		start := time.Now()
		store := func(from, to int64) {
			var wg sync.WaitGroup
			work := make(chan int64)
			for range 4 {
				wg.Go(func() {
					for first := range work {
						list := make(wamp.List, batch)
						for i := range list {
							list[i] = benchRow(first + int64(i))
						}
						if _, err := c.Call(context.Background(), bulk, nil, wamp.List{list}, nil, nil); err != nil {
							b.Error(err)
						}
					}
				})
			}
			for first := from; first < to; first += batch {
				work <- first
			}
			close(work)
			wg.Wait()
		}
		store(0, few)
		historyOnce(b, c)
		rssFew := rss(b, empty.cmd.Process.Pid)
		store(few, rows)
		stored := time.Since(start)
		row := historyOnce(b, c)
		rssFull := rss(b, empty.cmd.Process.Pid)

		_ = c.Close()
		empty.kill()

		start = time.Now()
		again := startChild(b, args)
		ready := time.Since(start)
		f = readEnvFile(b, envPath)
		c = joinWithEnv(b, f.WSURL, f.Installations[0].Env)
		historyOnce(b, c)
		serving := time.Since(start)
		rssAfter := rss(b, again.cmd.Process.Pid)
		_ = c.Close()
		again.kill()

		fi, err := os.Stat(filepath.Join(data, "fleet.db"))
		if err != nil {
			b.Fatal(err)
		}
		size := msgpackSize(b, row)
		b.Logf("stored %d rows in %v (%.0f rows/s)", rows, stored, rows/stored.Seconds())
		b.Logf("empty flockd: %s", rssEmpty)
		b.Logf("holding %d rows: %s", few, rssFew)
		b.Logf("holding the rows: %s (VmRSS %.2f × the empty one's, %.2f × with %d rows)", rssFull,
			float64(rssFull.vmRSS)/float64(rssEmpty.vmRSS), float64(rssFull.vmRSS)/float64(rssFew.vmRSS), few)
		b.Logf("restart: ready %v, a device joined and a history read answered %v", ready.Round(time.Millisecond), serving.Round(time.Millisecond))
		b.Logf("after the restart: %s (VmRSS %.2f × the empty one's)", rssAfter, float64(rssAfter.vmRSS)/float64(rssEmpty.vmRSS))
		b.Logf("fleet.db: %d bytes, %.1f per row; a row is %d bytes of msgpack (%.2f ×)", fi.Size(), float64(fi.Size())/rows, size, float64(fi.Size())/rows/float64(size))
		b.ReportMetric(float64(rssFull.vmRSS)/float64(rssEmpty.vmRSS), "rss-full/empty")
		b.ReportMetric(float64(rssAfter.vmRSS)/float64(rssEmpty.vmRSS), "rss-restarted/empty")
		b.ReportMetric(serving.Seconds(), "restart-s")
		b.ReportMetric(float64(fi.Size())/rows/float64(size), "disk/msgpack")
	}
}

// BenchmarkMillionRowsHeap stores 1,000,000 rows in a platform in this
// process, in memory and with a data folder, through InsertRows in
// batches of 1000, and reports the Go heap in use after a collection,
// before and after: what the rows cost in memory.
func BenchmarkMillionRowsHeap(b *testing.B) {
	const rows, batch = 1_000_000, 1000
	for _, store := range []string{"memory", "datadir"} {
		b.Run("store="+store, func(b *testing.B) {
			for range b.N {
				opts := []platformtest.Option{platformtest.WithMemoryRowLimit(0)}
				if store == "datadir" {
					opts = []platformtest.Option{platformtest.WithDataDir(filepath.Join(b.TempDir(), "data"))}
				}
				p, err := platformtest.Start(opts...)
				if err != nil {
					b.Fatal(err)
				}
				seed, err := platformtest.ParseSeed([]byte(benchConfig), b.TempDir())
				if err != nil {
					b.Fatal(err)
				}
				res, err := p.Reconcile(seed)
				if err != nil {
					b.Fatal(err)
				}
				in := res.Installations[0]
				before := heapInUse()
				list := make([]map[string]any, batch)
				for first := int64(0); first < rows; first += batch {
					for i := range list {
						list[i] = benchRow(first + int64(i))
					}
					if err := p.InsertRows(in, "readings", list...); err != nil {
						b.Fatal(err)
					}
				}
				clear(list)
				after := heapInUse()
				b.Logf("%s: heap in use %.1f MiB before, %.1f MiB after %d rows: %.0f bytes per row", store,
					float64(before)/(1<<20), float64(after)/(1<<20), rows, float64(after-before)/rows)
				b.ReportMetric(float64(after-before)/rows, "heap-B/row")
				p.Close()
			}
		})
	}
}

// heapInUse returns the bytes of the Go heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// historyOnce reads the newest row and returns it.
func historyOnce(tb testing.TB, c *client.Client) map[string]any {
	tb.Helper()
	res, err := c.Call(context.Background(), wire.HistoryProc("readings"), nil, wamp.List{map[string]any{"limit": 1}}, nil, nil)
	if err != nil {
		tb.Fatal(err)
	}
	if len(res.Arguments) == 0 {
		return nil
	}
	rows, _ := res.Arguments[0].([]any)
	if len(rows) == 0 {
		return nil
	}
	return rows[0].(map[string]any)
}

// msgpackSize returns the size of a row's msgpack encoding.
func msgpackSize(tb testing.TB, row map[string]any) int {
	tb.Helper()
	ser := &serialize.MessagePackSerializer{}
	with, err1 := ser.Serialize(&wamp.Result{Request: 1, Arguments: wamp.List{row}})
	without, err2 := ser.Serialize(&wamp.Result{Request: 1, Arguments: wamp.List{nil}})
	if err1 != nil || err2 != nil {
		tb.Fatal(err1, err2)
	}
	return len(with) - len(without) + 1 // the nil took one byte
}

// memUse is a process's resident memory, in bytes.
type memUse struct{ vmRSS, anon, file int64 }

func (m memUse) String() string {
	mib := func(n int64) float64 { return float64(n) / (1 << 20) }
	return fmt.Sprintf("VmRSS %.1f MiB (anonymous %.1f, file-mapped %.1f)", mib(m.vmRSS), mib(m.anon), mib(m.file))
}

// rss reads a process's resident memory from /proc.
func rss(tb testing.TB, pid int) memUse {
	tb.Helper()
	runtime.Gosched()
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var m memUse
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, _ := strings.Cut(sc.Text(), ":")
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(value), " kB"), 10, 64)
		switch name {
		case "VmRSS":
			m.vmRSS = kb << 10
		case "RssAnon":
			m.anon = kb << 10
		case "RssFile":
			m.file = kb << 10
		}
	}
	return m
}
