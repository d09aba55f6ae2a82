// This file holds the command line and the run: flockd, the callee, every
// client in every scenario, the output.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/flockgo/ironflock/internal/cpuprofile"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "flockbench:", err)
		stop()
		os.Exit(1)
	}
}

// options are the command line flags.
type options struct {
	duration, warmup  time.Duration
	count             int
	scenarios         string
	clients           string
	flockd, flockdEnv string
	json              bool
	withJS, withPy    bool
	scriptsDir        string
	cpuProfile        string
	callee            bool
	driver            bool
	memory            bool
	settle            time.Duration
	subscriptions     int
	subscriber        bool

	// The router benchmark (router.go).
	router          bool
	routerScenarios string
	routers         string
	routerProfile   string
	nexusRouter     bool
}

// runInfo describes a run, printed above the table.
type runInfo struct {
	GoVersion    string `json:"go_version"`
	Platform     string `json:"platform"`
	GOMAXPROCS   int    `json:"gomaxprocs"`
	NumCPU       int    `json:"num_cpu"`
	Duration     string `json:"duration"`
	Warmup       string `json:"warmup"`
	Count        int    `json:"count"`
	Router       string `json:"router"`
	Callee       string `json:"callee"`
	Driver       string `json:"driver,omitempty"`
	PublishBytes int    `json:"publish_bytes"`
	CallBytes    int    `json:"call_bytes"`
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("flockbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.DurationVar(&o.duration, "duration", 3*time.Second, "length of each measured interval")
	fs.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "unmeasured run before the intervals of each client and scenario")
	fs.IntVar(&o.count, "count", 1, "rounds: measured intervals per client and scenario, interleaved; the median is printed")
	fs.StringVar(&o.scenarios, "scenarios", "all", "comma-separated `list` of pub1, pub16, call1, call16, call1-json, call16-json, serve1, serve16, serve1-json, serve16-json")
	fs.StringVar(&o.clients, "clients", "all", "comma-separated `list` of sdk, sdk-any, sdk-hooks, nexus, floor, floor-1g")
	fs.StringVar(&o.flockd, "flockd", "", "flockd `binary` to start (default: go build ./cmd/flockd)")
	fs.StringVar(&o.flockdEnv, "flockd-env", "", "environment `file` of a running flockd to use instead of starting one")
	fs.BoolVar(&o.json, "json", false, "print the results as JSON")
	fs.BoolVar(&o.withJS, "with-js", false, "also run scripts/autobahn-js (needs node and its npm install)")
	fs.BoolVar(&o.withPy, "with-python", false, "also run scripts/autobahn-python (needs python3 with autobahn; $FLOCKBENCH_PYTHON names another interpreter)")
	fs.StringVar(&o.scriptsDir, "scripts", filepath.Join("cmd", "flockbench", "scripts"), "`directory` holding autobahn-js and autobahn-python")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of this process (the clients, not flockd or the callee) to `file`")
	fs.BoolVar(&o.memory, "memory", false, "measure memory instead of CPU: the idle resident memory of the footprint programs and what subscriptions add to an SDK client")
	fs.DurationVar(&o.settle, "settle", 2*time.Second, "with -memory: idle time after a footprint program is ready before its memory is read")
	fs.IntVar(&o.subscriptions, "subscriptions", 3000, "with -memory: the subscriptions the SDK client makes")
	fs.BoolVar(&o.callee, "callee", false, "internal: serve as the callee child process")
	fs.BoolVar(&o.driver, "driver", false, "internal: serve as the driver child process of the serve scenarios")
	fs.BoolVar(&o.subscriber, "subscriber", false, "internal: serve as the subscriber child process of -memory")
	fs.BoolVar(&o.router, "router", false, "measure the routers instead of the clients: flockd against a bare nexus router")
	fs.StringVar(&o.routerScenarios, "router-scenarios", "all", "with -router: comma-separated `list` of fan10, fan100, fan1000, call16, join")
	fs.StringVar(&o.routers, "routers", "all", "with -router: comma-separated `list` of flockd, nexus, nexus-cra")
	fs.StringVar(&o.routerProfile, "router-cpuprofile", "", "with -router: write a CPU profile of each router, each round, into `directory`")
	fs.BoolVar(&o.nexusRouter, "nexus-router", false, "internal: serve as the bare nexus router child process")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if o.duration <= 0 || o.warmup < 0 || o.count < 1 {
		return nil, errors.New("-duration must be positive, -warmup not negative and -count at least 1")
	}
	if o.settle < 0 || o.subscriptions < 1 {
		return nil, errors.New("-settle must not be negative and -subscriptions at least 1")
	}
	if o.flockd != "" && o.flockdEnv != "" {
		return nil, errors.New("-flockd and -flockd-env exclude each other")
	}
	return o, nil
}

// run is flockbench's main logic.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.callee {
		return calleeMain(ctx, stdin, stdout)
	}
	if o.driver {
		return driverMain(ctx, stdin, stdout)
	}
	if o.subscriber {
		return subscriberMain(ctx, stdin, stdout)
	}
	if o.nexusRouter {
		return nexusRouterMain(ctx, stdin, stdout)
	}
	if o.router {
		return runRouters(ctx, o, stdout, stderr)
	}
	scs, err := pick("scenario", o.scenarios, scenarios, func(s scenario) string { return s.Name })
	if err != nil {
		return err
	}
	kinds, err := pick("client", o.clients, clientKinds, func(k clientKind) string { return k.Name })
	if err != nil {
		return err
	}

	var f *fleet
	var logs childLogs // of the children, for a failed run
	if o.flockdEnv != "" {
		if f, err = readFleet(o.flockdEnv); err != nil {
			return err
		}
	} else {
		fmt.Fprintln(stderr, "flockbench: starting flockd")
		var p *flockdProc
		if p, f, err = startFlockd(ctx, o.flockd); err != nil {
			return err
		}
		defer p.stop()
		logs.add("flockd", p.log)
	}
	if o.memory {
		return runMemory(ctx, o, f, stdout, stderr)
	}
	if o.cpuProfile != "" {
		stop, err := cpuprofile.Start(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	t := target{Fleet: f}
	info := runInfo{GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH,
		GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(), Duration: o.duration.String(),
		Warmup: o.warmup.String(), Count: o.count, Router: "flockd in another process at " + f.WSURL,
		Callee: "none (no call scenario)"}
	if slices.ContainsFunc(scs, func(s scenario) bool { return s.Call }) {
		cp, proc, err := startCallee(ctx, f.Callee)
		if err != nil {
			return err
		}
		defer cp.stop()
		logs.add("callee", cp.log)
		t.Procedure = proc
		info.Callee = "SDK client in a child process, procedure " + proc
	}
	if slices.ContainsFunc(scs, func(s scenario) bool { return s.Serve }) {
		d, err := startDriver(ctx, f.WSURL, f.Callee)
		if err != nil {
			return err
		}
		defer d.stop()
		logs.add("driver", d.p.log)
		t.Driver = d
		info.Driver = "floor client in a child process, pipelined, calling the measured callee's \"" + serveFunction + "\""
	}
	if info.PublishBytes, info.CallBytes, err = payloadSizes(t); err != nil {
		return err
	}

	rs, err := bench(ctx, t, scs, kinds, o.count, stderr, func(ctx context.Context, w *workload, sc scenario) (sample, error) {
		return runTimed(ctx, w, sc, o.warmup, o.duration)
	})
	if err != nil {
		return logs.explain(err)
	}
	extra, err := runScripts(ctx, o, t, scs, stderr)
	if err != nil {
		return err
	}
	rs = mergeResults(rs, extra)
	addRatios(rs)
	if o.json {
		return printJSON(stdout, info, rs)
	}
	printInfo(stdout, info)
	return printTable(stdout, rs)
}

// measureFunc measures a connected workload in a scenario: one sample.
type measureFunc func(ctx context.Context, w *workload, sc scenario) (sample, error)

// bench runs every client kind that supports it in every scenario, one at
// a time, for rounds rounds: each round measures each client once per
// scenario, the clients of a scenario back to back (in reverse order every
// other round), so that a change in the machine's load between rounds
// weighs on all of them alike. It returns one result per scenario and
// client, in scenario order, with one sample per round.
func bench(ctx context.Context, t target, scs []scenario, kinds []clientKind, rounds int, progress io.Writer, measure measureFunc) ([]result, error) {
	type key struct{ sc, client string }
	samples := map[key][]sample{}
	for round := range rounds {
		for _, sc := range scs {
			order := slices.Clone(kinds)
			if round%2 == 1 {
				slices.Reverse(order)
			}
			for _, k := range order {
				if !k.supports(sc) {
					continue
				}
				fmt.Fprintf(progress, "flockbench: round %d/%d: %s %s\n", round+1, rounds, sc.Name, k.Name)
				w, err := k.open(ctx, t, sc)
				if err != nil {
					return nil, fmt.Errorf("%s %s: connect: %w", sc.Name, k.Name, err)
				}
				s, err := measure(ctx, w, sc)
				w.close()
				if err != nil {
					return nil, fmt.Errorf("%s %s: %w", sc.Name, k.Name, err)
				}
				samples[key{sc.Name, k.Name}] = append(samples[key{sc.Name, k.Name}], s)
			}
		}
	}
	var rs []result
	for _, sc := range scs {
		for _, k := range kinds {
			if ss, ok := samples[key{sc.Name, k.Name}]; ok {
				rs = append(rs, newResult(sc.Name, k.Name, ss))
			}
		}
	}
	return rs, nil
}

// payloadSizes returns the encoded sizes of the floor client's PUBLISH and
// CALL (the same arguments every client sends); 0 for CALL without a
// callee.
func payloadSizes(t target) (pub, call int, err error) {
	p, err := floorTemplate(t, scenario{})
	if err != nil {
		return 0, 0, err
	}
	if t.Procedure == "" {
		return p.Len(), 0, nil
	}
	c, err := floorTemplate(t, scenario{Call: true})
	if err != nil {
		return 0, 0, err
	}
	return p.Len(), c.Len(), nil
}

// printInfo writes the lines above the table.
func printInfo(w io.Writer, info runInfo) {
	fmt.Fprintf(w, "flockbench: %s %s, GOMAXPROCS %d of %d CPUs\n", info.GoVersion, info.Platform, info.GOMAXPROCS, info.NumCPU)
	fmt.Fprintf(w, "router: %s\ncallee: %s\n", info.Router, info.Callee)
	if info.Driver != "" {
		fmt.Fprintf(w, "serve scenarios: the client is the callee; callers: %s\n", info.Driver)
	}
	if info.CallBytes > 0 {
		fmt.Fprintf(w, "messages: PUBLISH %d bytes, CALL %d bytes (msgpack)\n", info.PublishBytes, info.CallBytes)
	} else {
		fmt.Fprintf(w, "messages: PUBLISH %d bytes (msgpack)\n", info.PublishBytes)
	}
	fmt.Fprintf(w, "each: %d round(s) of %s warm-up + %s measured per client and scenario (median by CPU per operation;\n"+
		"ratios: median of the per-round ratios); CPU = user+system time of this process\n\n", info.Count, info.Warmup, info.Duration)
}
