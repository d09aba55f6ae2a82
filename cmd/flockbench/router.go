// This file holds the router benchmark (flockbench -router): flockd and a
// bare nexus router (anonymous and WAMP-CRA) in child processes carry the
// same loads side by side, and each router's own CPU time per routed
// operation and its resident memory are compared.

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Names of the routers under test.
const (
	routerFlockd   = "flockd"
	routerNexus    = "nexus"     // bare nexus, anonymous
	routerNexusCRA = "nexus-cra" // bare nexus, WAMP-CRA
)

// routerNames lists the routers in the order they run.
var routerNames = []string{routerFlockd, routerNexus, routerNexusCRA}

// routerScenario is one load a router carries.
type routerScenario struct {
	Name  string
	Title string
	Unit  string // what one operation is: event, call or join
	// Fan-out: Subscribers sessions subscribed to one topic, one
	// publisher publishing Rate acknowledged publications per second.
	Subscribers, Rate int
	// Routed calls: Callers sessions with one call each in flight to one
	// callee.
	Callers int
	// Joins: Joiners goroutines each joining and leaving in a loop.
	Joiners int
}

// routerScenarios lists every router scenario, in the order they run.
var routerScenarios = []routerScenario{
	{Name: "fan10", Unit: "event", Subscribers: 10, Rate: 1000, Title: "10 subscribers, 1000 publications/s"},
	{Name: "fan100", Unit: "event", Subscribers: 100, Rate: 1000, Title: "100 subscribers, 1000 publications/s"},
	{Name: "fan1000", Unit: "event", Subscribers: 1000, Rate: 100, Title: "1000 subscribers, 100 publications/s"},
	{Name: "call16", Unit: "call", Callers: 16, Title: "16 callers, 1 callee"},
	{Name: "join", Unit: "join", Joiners: 4, Title: "join and leave, 4 at a time"},
}

// routerTarget is a running router and how its peers join it.
type routerTarget struct {
	Name      string
	pid       int
	caller    credential // subscribers, publisher, callers, joiners
	callee    credential
	procedure string         // the callee registers it
	kwargs    map[string]any // of every publication: the caller's device metadata
	stop      func()
}

// routerSample is what one measured interval cost the router.
type routerSample struct {
	Ops  int64
	Wall time.Duration
	CPU  time.Duration // the router process's user + system CPU time
	RSS  int64         // resident memory at the end of the interval
	Peak int64         // the most resident memory so far
	Lost int64         // events not delivered (fan-out)
}

// CPUPerOp is the router's CPU time per operation in microseconds.
func (s routerSample) CPUPerOp() float64 { return per(float64(s.CPU.Nanoseconds())/1e3, s.Ops) }

// startRouters starts every router of names: a flockd with its default
// flags (recording on) and the bare nexus routers, on the realm and
// credentials of flockd's fleet. profDir, when not "", receives a CPU
// profile of each.
func startRouters(ctx context.Context, names []string, flockdBin, profDir string, round int) (_ []*routerTarget, err error) {
	var ts []*routerTarget
	defer func() {
		if err != nil {
			for _, t := range ts {
				t.stop()
			}
		}
	}()
	prof := func(name string) string {
		if profDir == "" {
			return ""
		}
		return fmt.Sprintf("%s/%s-%d.prof", profDir, name, round+1)
	}
	var args []string
	if p := prof(routerFlockd); p != "" {
		args = append(args, "-cpuprofile", p)
	}
	fp, f, err := startFlockdArgs(ctx, flockdBin, args...)
	if err != nil {
		return nil, err
	}
	fl := &routerTarget{Name: routerFlockd, pid: fp.cmd.Process.Pid, stop: fp.stop, kwargs: publishKwargs(f.Caller)}
	ts = append(ts, fl)
	if fl.caller, err = fleetCredential(f.WSURL, f.Caller); err != nil {
		return nil, err
	}
	if fl.callee, err = fleetCredential(f.WSURL, f.Callee); err != nil {
		return nil, err
	}
	if fl.procedure, err = deviceFunction(f.Callee, calleeFunction); err != nil {
		return nil, err
	}
	for _, name := range names {
		if name == routerFlockd {
			continue
		}
		auth := "anonymous"
		if name == routerNexusCRA {
			auth = "wampcra"
		}
		c, err := startNexus(ctx, auth, fl.caller.Realm, fl.caller.AuthID, fl.caller.Secret, prof(name))
		if err != nil {
			return nil, err
		}
		t := &routerTarget{Name: name, pid: c.pid(), stop: c.stop, procedure: fl.procedure, kwargs: fl.kwargs}
		ts = append(ts, t)
		t.caller = credential{URL: c.url, Realm: fl.caller.Realm, AuthID: fl.caller.AuthID, Secret: fl.caller.Secret,
			Anonymous: auth == "anonymous"}
		t.callee = t.caller
	}
	return slices.DeleteFunc(ts, func(t *routerTarget) bool {
		if !slices.Contains(names, t.Name) {
			t.stop()
			return true
		}
		return false
	}), nil
}

// fleetCredential is the WAMP-CRA credential of a device environment.
func fleetCredential(url string, env map[string]string) (credential, error) {
	r, err := realm(env)
	if err != nil {
		return credential{}, err
	}
	return credential{URL: url, Realm: r, AuthID: env[wire.EnvAppAuthID], Secret: env[wire.EnvAppAuthSecret]}, nil
}

// deviceFunction is the URI of device function name of env's device.
func deviceFunction(env map[string]string, name string) (string, error) {
	var n [3]int
	for i, k := range []string{wire.EnvSwarmKey, wire.EnvDeviceKey, wire.EnvAppKey} {
		v, err := strconv.Atoi(env[k])
		if err != nil {
			return "", fmt.Errorf("environment without a numeric %s", k)
		}
		n[i] = v
	}
	return wire.DeviceFunction(n[0], n[1], n[2], env[wire.EnvStage], name), nil
}

// routerResult is one router's figures in one scenario.
type routerResult struct {
	Scenario string         `json:"scenario"`
	Router   string         `json:"router"`
	Unit     string         `json:"unit"`
	Samples  []routerSample `json:"-"`
	Count    int            `json:"count"`
	// Router CPU per operation of each round, in µs.
	Rounds []float64 `json:"cpu_us_per_op_rounds"`

	// Figures of the median interval (by CPU per operation).
	Ops       int64   `json:"ops"`
	OpsPerSec float64 `json:"ops_per_sec"`
	CPUMicros float64 `json:"cpu_us_per_op"`
	// Resident memory: the median over rounds at the end of the interval,
	// and the highest peak.
	RSSMiB  float64 `json:"rss_mib"`
	PeakMiB float64 `json:"peak_mib"`
	Lost    int64   `json:"lost,omitempty"`
	// Ratios of CPU per operation and of resident memory to the bare nexus
	// routers' in the same rounds (0: not measured).
	VsNexus    float64 `json:"cpu_vs_nexus,omitempty"`
	VsNexusCRA float64 `json:"cpu_vs_nexus_cra,omitempty"`
	RSSVsNexus float64 `json:"rss_vs_nexus,omitempty"`
}

// newRouterResult summarizes samples.
func newRouterResult(sc routerScenario, router string, samples []routerSample) routerResult {
	m := slices.Clone(samples)
	slices.SortFunc(m, func(a, b routerSample) int { return cmpFloat(a.CPUPerOp(), b.CPUPerOp()) })
	med := m[len(m)/2]
	r := routerResult{Scenario: sc.Name, Router: router, Unit: sc.Unit, Samples: samples, Count: len(samples),
		Ops: med.Ops, CPUMicros: med.CPUPerOp()}
	if med.Wall > 0 {
		r.OpsPerSec = float64(med.Ops) / med.Wall.Seconds()
	}
	rss := make([]float64, len(samples))
	for i, s := range samples {
		r.Rounds = append(r.Rounds, s.CPUPerOp())
		rss[i] = float64(s.RSS) / (1 << 20)
		r.PeakMiB = max(r.PeakMiB, float64(s.Peak)/(1<<20))
		r.Lost += s.Lost
	}
	r.RSSMiB = medianFloat(rss)
	return r
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// addRouterRatios fills the ratios to the bare nexus routers: the median
// of the per-round ratios.
func addRouterRatios(rs []routerResult) {
	base := map[string]routerResult{}
	for _, r := range rs {
		base[r.Scenario+"/"+r.Router] = r
	}
	ratio := func(r, b routerResult, f func(routerSample) float64) float64 {
		if len(r.Samples) != len(b.Samples) {
			return 0
		}
		xs := make([]float64, len(r.Samples))
		for i := range r.Samples {
			d := f(b.Samples[i])
			if d == 0 {
				return 0
			}
			xs[i] = f(r.Samples[i]) / d
		}
		return medianFloat(xs)
	}
	cpu := func(s routerSample) float64 { return s.CPUPerOp() }
	rss := func(s routerSample) float64 { return float64(s.RSS) }
	for i := range rs {
		if b, ok := base[rs[i].Scenario+"/"+routerNexus]; ok {
			rs[i].VsNexus = ratio(rs[i], b, cpu)
			if rs[i].RSSMiB > 0 {
				rs[i].RSSVsNexus = ratio(rs[i], b, rss)
			}
		}
		if b, ok := base[rs[i].Scenario+"/"+routerNexusCRA]; ok {
			rs[i].VsNexusCRA = ratio(rs[i], b, cpu)
		}
	}
}

// runRouters is flockbench -router: count rounds, each with fresh
// routers, every scenario on every router back to back (in reverse order
// every other round).
func runRouters(ctx context.Context, o *options, stdout, stderr io.Writer) error {
	scs, err := pick("router scenario", o.routerScenarios, routerScenarios, func(s routerScenario) string { return s.Name })
	if err != nil {
		return err
	}
	names, err := pick("router", o.routers, routerNames, func(s string) string { return s })
	if err != nil {
		return err
	}
	bin := o.flockd
	if bin == "" {
		dir, err := os.MkdirTemp("", "flockbench-build-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		fmt.Fprintln(stderr, "flockbench: building flockd")
		if bin, err = buildFlockd(ctx, dir); err != nil {
			return err
		}
	}
	if o.routerProfile != "" {
		if err := os.MkdirAll(o.routerProfile, 0o755); err != nil {
			return err
		}
	}
	type key struct{ sc, router string }
	samples := map[key][]routerSample{}
	for round := range o.count {
		fmt.Fprintf(stderr, "flockbench: round %d/%d: starting the routers\n", round+1, o.count)
		ts, err := startRouters(ctx, names, bin, o.routerProfile, round)
		if err != nil {
			return err
		}
		err = func() error {
			defer func() {
				for _, t := range ts {
					t.stop()
				}
			}()
			for _, sc := range scs {
				order := slices.Clone(ts)
				if round%2 == 1 {
					slices.Reverse(order)
				}
				for _, t := range order {
					fmt.Fprintf(stderr, "flockbench: round %d/%d: %s on %s\n", round+1, o.count, sc.Name, t.Name)
					s, err := runRouterScenario(ctx, t, sc, o.warmup, o.duration)
					if err != nil {
						return fmt.Errorf("%s on %s: %w", sc.Name, t.Name, err)
					}
					samples[key{sc.Name, t.Name}] = append(samples[key{sc.Name, t.Name}], s)
				}
			}
			return nil
		}()
		if err != nil {
			return err
		}
	}
	var rs []routerResult
	for _, sc := range scs {
		for _, n := range names {
			if ss, ok := samples[key{sc.Name, n}]; ok {
				rs = append(rs, newRouterResult(sc, n, ss))
			}
		}
	}
	addRouterRatios(rs)
	if o.json {
		return printRouterJSON(stdout, o, rs)
	}
	printRouterInfo(stdout, o, scs)
	return printRouterTable(stdout, rs)
}

// runRouterScenario measures one interval of sc on t.
func runRouterScenario(ctx context.Context, t *routerTarget, sc routerScenario, warmup, d time.Duration) (routerSample, error) {
	switch {
	case sc.Subscribers > 0:
		return runFanOut(ctx, t, sc, warmup, d)
	case sc.Callers > 0:
		return runRoutedCalls(ctx, t, sc, warmup, d)
	case sc.Joiners > 0:
		return runJoins(ctx, t, sc, warmup, d)
	}
	return routerSample{}, errors.New("empty scenario")
}
