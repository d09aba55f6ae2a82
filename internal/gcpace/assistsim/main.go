// Command assistsim measures how a collection's mark stalls a server
// whose requests pass through many goroutines, against the same work on
// few. It holds a live heap of pointers (the sessions' state), sends
// requests at a fixed rate, and passes each through a pipeline of stages,
// each of which allocates and works a share of the request's budget:
//
//   - per session (-pool 0): every session has a goroutine per stage, as
//     a goroutine-per-connection router has (its reader, its session
//     loop, its writer, …);
//   - pooled (-pool N): each stage is served by N goroutines shared by all
//     sessions, as an event loop would.
//
// Go resets every goroutine's assist credit at the start of a mark, and a
// goroutine that allocates while its credit is negative does at least
// 64 KiB of marking itself before it goes on (gcOverAssistWork in the
// runtime). When more goroutines allocate during a mark than the mark has
// 64 KiB units of work, the allocating goroutines do all of it: nothing
// else runs until the mark ends. The report gives the latency of requests
// and the mark's CPU by who did it (runtime/metrics).
//
//	go run ./internal/gcpace/assistsim -sessions 19000 -stages 5
//	go run ./internal/gcpace/assistsim -sessions 19000 -stages 5 -pool 16
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"slices"
	"sync"
	"time"
)

// node is one object of the live heap: two pointers and padding, 128 bytes.
type node struct {
	next, other *node
	_           [14]int64
}

// request is one request on its way through the stages.
type request struct {
	start   time.Time
	session int
	stage   int
}

// sim is one run.
type sim struct {
	stages, sessions, pool int
	work                   time.Duration // CPU per request, all stages
	objects                int           // allocations per request, all stages
	queues                 [][]chan request
	mu                     sync.Mutex
	latencies              []time.Duration
	inFlight               sync.WaitGroup // requests sent and not yet through
}

// gcCPU are the mark's CPU classes read from runtime/metrics.
var gcCPU = []string{
	"/cpu/classes/gc/mark/assist:cpu-seconds",
	"/cpu/classes/gc/mark/dedicated:cpu-seconds",
	"/cpu/classes/gc/mark/idle:cpu-seconds",
	"/gc/cycles/total:gc-cycles",
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "assistsim:", err)
		os.Exit(2)
	}
}

// run parses args, runs the simulation and writes its report to out.
func run(args []string, out io.Writer) error {
	s := &sim{}
	fs := flag.NewFlagSet("assistsim", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.IntVar(&s.sessions, "sessions", 19000, "sessions")
	fs.IntVar(&s.stages, "stages", 5, "goroutines a request passes through")
	fs.IntVar(&s.pool, "pool", 0, "goroutines per stage shared by all sessions (0: one per session and stage)")
	fs.DurationVar(&s.work, "work", 150*time.Microsecond, "CPU per request, split among the stages")
	fs.IntVar(&s.objects, "objects", 100, "48-byte allocations per request, split among the stages")
	rate := fs.Int("rate", 10000, "requests per second")
	liveMB := fs.Int("live", 260, "live heap of pointers, MiB")
	dur := fs.Duration("d", 40*time.Second, "how long requests are sent")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if s.stages < 1 || s.sessions < 1 || s.pool < 0 || *rate < 1000 || *liveMB < 0 || *dur <= 0 {
		return errors.New("-stages and -sessions at least 1, -pool and -live at least 0, -rate at least 1000, -d above 0")
	}
	live := make([]*node, *liveMB<<20/128)
	for i := range live {
		live[i] = &node{}
		if i > 0 {
			live[i].next, live[i].other = live[i-1], live[i/2]
		}
	}
	s.start()
	defer s.stop()
	runtime.GC()
	before := readGC()
	s.send(*rate, *dur)
	after := readGC()
	runtime.KeepAlive(live)
	s.report(out, before, after)
	return nil
}

// start starts the goroutines of every stage.
func (s *sim) start() {
	per := s.sessions
	if s.pool > 0 {
		per = s.pool
	}
	s.queues = make([][]chan request, s.stages)
	for st := range s.queues {
		s.queues[st] = make([]chan request, per)
		for i := range s.queues[st] {
			c := make(chan request, 64)
			s.queues[st][i] = c
			go s.serve(c)
		}
	}
}

// serve runs one goroutine of a stage: allocate, work, hand on.
func (s *sim) serve(c chan request) {
	var keep [][]byte
	for r := range c {
		keep = keep[:0]
		for range s.objects / s.stages {
			keep = append(keep, make([]byte, 48))
		}
		for end := time.Now().Add(s.work / time.Duration(s.stages)); time.Now().Before(end); {
		}
		if r.stage++; r.stage < s.stages {
			s.queue(r) <- r
			continue
		}
		d := time.Since(r.start)
		s.mu.Lock()
		s.latencies = append(s.latencies, d)
		s.mu.Unlock()
		s.inFlight.Done()
	}
}

// stop ends the stages' goroutines.
func (s *sim) stop() {
	for _, q := range s.queues {
		for _, c := range q {
			close(c)
		}
	}
}

// queue is the goroutine of r's session at r's stage.
func (s *sim) queue(r request) chan request {
	q := s.queues[r.stage]
	return q[r.session%len(q)]
}

// send sends rate requests a second, round-robin over the sessions, for
// d, then waits for the last ones.
func (s *sim) send(rate int, d time.Duration) {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	stop := time.Now().Add(d)
	sent := 0
	for now := range tick.C {
		if now.After(stop) {
			break
		}
		for range rate / 1000 {
			r := request{start: now, session: sent % s.sessions}
			s.inFlight.Add(1)
			s.queue(r) <- r
			sent++
		}
	}
	s.inFlight.Wait()
}

// readGC reads gcCPU now.
func readGC() []metrics.Sample {
	ss := make([]metrics.Sample, len(gcCPU))
	for i, n := range gcCPU {
		ss[i].Name = n
	}
	metrics.Read(ss)
	return ss
}

// report writes the latencies and the mark's CPU by class.
func (s *sim) report(out io.Writer, before, after []metrics.Sample) {
	lat := slices.Clone(s.latencies)
	slices.Sort(lat)
	q := func(p float64) time.Duration { return lat[int(p*float64(len(lat)-1))].Round(10 * time.Microsecond) }
	delta := func(i int) float64 { return after[i].Value.Float64() - before[i].Value.Float64() }
	fmt.Fprintf(out, "sessions %d, stages %d, pool %d: %d requests, p50 %v, p99 %v, p99.9 %v, max %v; %d collections, mark CPU: assists %.2f s, workers %.2f s, idle %.2f s\n",
		s.sessions, s.stages, s.pool, len(lat), q(0.5), q(0.99), q(0.999), q(1),
		after[3].Value.Uint64()-before[3].Value.Uint64(), delta(0), delta(1), delta(2))
}
