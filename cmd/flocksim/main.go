// This file holds the command line and the run: the fleet, the clients,
// the stages, the summary.

package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/flockgo/ironflock/internal/cpuprofile"
	"github.com/flockgo/ironflock/internal/gcpace"
	ver "github.com/flockgo/ironflock/internal/version"
	"github.com/flockgo/ironflock/internal/workpool"
)

// version is flocksim's version, stamped by a release build (-ldflags
// "-X main.version=v1.2.0"); -version prints it, or what the toolchain
// recorded (internal/version).
var version = ver.Devel

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "flocksim:", err)
		stop()
		os.Exit(1)
	}
}

// options are the command line flags.
type options struct {
	scenario, out, shard, source, flockd string
	cpuprofile                           string
	live                                 time.Duration
	version                              bool
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("flocksim", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.scenario, "scenario", "", "the scenario `file` (YAML; see docs/flocksim.md)")
	fs.StringVar(&o.out, "out", "", "write the JSON summary to `file` instead of standard output")
	fs.StringVar(&o.shard, "shard", "", "drive only the share `i/n` of the scenario's devices (those whose index modulo n is i-1), for n flocksim processes")
	fs.StringVar(&o.source, "source", "", "dial from these local `addresses` (127.0.0.1,127.0.0.2,…), the devices in turn, where one address runs out of ports")
	fs.StringVar(&o.flockd, "flockd", "", "flockd `binary` to start when the scenario has a flockd section (default: the scenario's flockd.bin, else a build of ./cmd/flockd)")
	fs.DurationVar(&o.live, "live", time.Second, "interval of the live line on standard error; 0 = none")
	fs.BoolVar(&o.version, "version", false, "print flocksim's version and exit")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "write a CPU profile of flocksim itself to `file`, from start to end")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flocksim -scenario FILE [-out FILE] [-shard i/n] [-source ADDR,…] [-flockd PATH] [-live DURATION]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if !o.version && o.scenario == "" {
		return nil, errors.New("-scenario FILE is required")
	}
	return o, nil
}

// sim is a run.
type sim struct {
	ctx    context.Context
	sc     *scenario
	devs   []*device
	gens   map[string]generator
	flockd *flockdProc
	base   memSample
	// flockdBase is flockd's resident memory before the first join.
	flockdBase int64
	started    time.Time

	appends       atomic.Int64 // acknowledged in the whole run
	cur           atomic.Pointer[meter]
	stageName     atomic.Pointer[string]
	ops           sync.WaitGroup // schedules and operations in flight
	workers       *workpool.Pool // runs the operations (load.go)
	loadOn        bool
	stopSchedules context.CancelFunc
	stopped       bool
}

// meter is the current stage's.
func (s *sim) meter() *meter { return s.cur.Load() }

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if o.version {
		fmt.Fprintln(stdout, "flocksim", ver.String(version))
		return nil
	}
	sc, err := readScenario(o.scenario)
	if err != nil {
		return err
	}
	if o.cpuprofile != "" {
		stopProfile, err := cpuprofile.Start(o.cpuprofile)
		if err != nil {
			return err
		}
		defer func() {
			if err := stopProfile(); err != nil {
				fmt.Fprintln(stderr, "flocksim:", err)
			}
		}()
	}
	sh, err := parseShard(o.shard)
	if err != nil {
		return err
	}
	sources, err := parseSources(o.source)
	if err != nil {
		return err
	}
	s := &sim{ctx: ctx, sc: sc, started: time.Now(), gens: map[string]generator{}}
	if a := sc.Device.Append; a != nil {
		for col, spec := range a.Values {
			s.gens[col], _ = parseGenerator(spec) // checked by parseScenario
		}
	}
	all, err := s.fleet(ctx, o, sh)
	if s.flockd != nil {
		defer s.flockd.stop()
	}
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return fmt.Errorf("-shard %s: no device of the scenario's %d falls in this shard", o.shard, sc.Fleet.Devices)
	}
	fmt.Fprintf(stderr, "flocksim: %d devices (shard %d/%d of %d)\n", len(all), sh.i, sh.n, sc.Fleet.Devices)
	s.base = sampleMemory()
	defer gcpace.Start(ctx, gcPolicy(), slog.New(slog.DiscardHandler))()
	if s.flockd != nil {
		s.flockdBase, _ = rssOf(strconv.Itoa(s.flockd.pid()))
	}
	for i, info := range all {
		var ip, auto net.IP
		if len(sources) > 0 {
			ip = sources[i%len(sources)]
		} else {
			auto = autoSource(i, len(all))
		}
		d, err := newDevice(info, newConnHolder(ip, auto))
		if err != nil {
			return fmt.Errorf("device %s: %w", info.Name, err)
		}
		s.devs = append(s.devs, d)
	}
	for i, d := range s.devs {
		d.target = s.devs[(i+1)%len(s.devs)].info.Key
	}
	s.cur.Store(newMeter())
	first := "start"
	s.stageName.Store(&first)
	if o.live > 0 {
		lctx, cancel := context.WithCancel(ctx)
		defer cancel()
		go s.live(lctx, stderr, o.live)
	}
	sum := summary{Version: ver.String(version), Scenario: o.scenario, Started: s.started, Shard: fmt.Sprintf("%d/%d", sh.i, sh.n),
		Devices: len(s.devs), Flockd: s.flockd != nil, FlockdBaseRSS: s.flockdBase}
	for _, ip := range sources {
		sum.Sources = append(sum.Sources, ip.String())
	}
	var runErr error
	for _, st := range sc.Stages {
		r, err := s.runStage(st)
		sum.Stages = append(sum.Stages, r)
		fmt.Fprintf(stderr, "flocksim: stage %s (%s) done in %.1fs: joined %d/%d missing %d, acked %d (%.0f/s) p50 %.1fms p99 %.1fms max %.1fms, failed %d\n",
			r.Name, r.Kind, r.Seconds, r.Joined, r.Devices, r.Missing, r.Acked, r.Rate, r.Latency.P50, r.Latency.P99, r.Latency.Max, r.Failed)
		if err != nil {
			runErr = err
			break
		}
		if r.Missing > 0 {
			runErr = fmt.Errorf("stage %s: %d of %d devices not joined within %s (the most frequent failures: %v)", r.Name, r.Missing, r.Devices, st.Timeout, r.Errors[:min(len(r.Errors), 5)])
			break
		}
	}
	if !s.stopped {
		s.stop()
	}
	sum.Appends = s.appends.Load()
	if runErr == nil && sc.Verify {
		vctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
		sum.Verify, runErr = s.verify(vctx)
		cancel()
		if runErr == nil && !sum.Verify.ok() {
			runErr = fmt.Errorf("verify: %d acknowledged rows lost, %d duplicated (of %d acknowledged, %d stored)",
				sum.Verify.Lost, sum.Verify.Duplicated, sum.Verify.Acked, sum.Verify.Stored)
		}
	}
	if err := writeSummary(o.out, stdout, &sum); err != nil {
		return errors.Join(runErr, err)
	}
	return runErr
}

// fleet returns this shard's devices, starting flockd first when the
// scenario says so.
func (s *sim) fleet(ctx context.Context, o *options, sh shard) ([]deviceInfo, error) {
	f := s.sc.Fleet
	switch {
	case s.sc.Flockd != nil:
		p, env, err := startFlockd(ctx, s.sc.Flockd, o.flockd, f.Devices, f.App, f.Stage)
		if err != nil {
			return nil, err
		}
		s.flockd = p
		all, err := fleetFromEnv(env, f.App, f.Stage, f.Devices)
		if err != nil {
			return nil, err
		}
		return sh.pick(all), nil
	case f.EnvFile != "":
		env, err := readEnvFile(f.EnvFile)
		if err != nil {
			return nil, err
		}
		all, err := fleetFromEnv(env, f.App, f.Stage, f.Devices)
		if err != nil {
			return nil, err
		}
		return sh.pick(all), nil
	default:
		return createFleet(ctx, f, sh)
	}
}

// writeSummary writes sum as indented JSON to path, or to stdout when path
// is empty.
func writeSummary(path string, stdout io.Writer, sum *summary) error {
	b, err := json.MarshalIndent(sum, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if path == "" {
		_, err = stdout.Write(b)
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
