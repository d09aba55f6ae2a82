// This file holds serving: flags, the seed (config file or demo), the
// platform's lifetime and its log lines.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"

	ver "github.com/flockgo/ironflock/internal/version"
	"github.com/flockgo/ironflock/platformtest"
)

// serve runs a platform until ctx ends.
func serve(ctx context.Context, args []string, stdout, stderr io.Writer, ready func(*platformtest.Platform)) (err error) {
	fs := flag.NewFlagSet("flockd", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:8080", "`address` to serve WAMP (/ws-ua-usr) and HTTP on")
	config := fs.String("config", "", "YAML `file` with projects, devices, apps, installations and users (default: a demo)")
	envFile := fs.String("env-file", "", "write the URLs, device environments and tokens as JSON to `file` once listening")
	verbose := fs.Bool("v", false, "log debug lines, including the router's")
	recordMsgs := fs.Int("record-messages", 10000, "keep the newest `n` inbound messages for inspection (0: no bound)")
	recordBytes := fs.Int64("record-bytes", 64<<20, "keep at most `n` bytes of recorded payloads (0: no bound)")
	noRecord := fs.Bool("no-record", false, "record no inbound messages")
	strict := fs.Bool("strict-auth", false, "refuse the legacy credential (serial, serial): only per-app credentials join")
	authLog := fs.Int("auth-log", platformtest.DefaultAuthLogLimit, "keep the newest `n` authentication attempts for inspection")
	showVersion := fs.Bool("version", false, "print flockd's version and exit")
	uploadMinRate := fs.Int64("upload-min-rate", platformtest.DefaultUploadMinRate, "cut an upload whose body comes slower than `n` bytes a second on average, after "+
		platformtest.DefaultUploadGrace.String()+" (a client that trickles its body holds its connection otherwise; 0: no bound)")
	spillDir := fs.String("spill-dir", "", "keep stored objects over 1 MiB in files under `folder`, which flockd owns and clears of what killed runs left "+
		"(default: spill in the data folder; with -memory, "+platformtest.DefaultSpillDir()+")")
	cons := addConsoleFlags(fs) // console.go
	edge := addEdgeFlags(fs)    // edge.go
	data := addDataFlags(fs)    // data.go
	db := addDBFlags(fs)        // db.go
	prof := addProfileFlags(fs) // profile.go
	opsF := addOpsFlags(fs)     // ops.go
	gcF := addGCFlags(fs)       // gc.go
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: flockd [-listen ADDR] [-config FILE] [-data DIR | -memory [-memory-rows N] [-memory-bytes N]] [-allow-drop] [-env-file FILE]\n"+
			"              [-record-messages N] [-record-bytes N] [-no-record] [-auth-log N] [-strict-auth] [-spill-dir DIR] [-upload-min-rate N]\n"+
			"              [-db URL] [-db-wait DURATION]\n"+
			"              [-no-console] [-console-write] [-console-token TOKEN] [-allow-host NAME] [-allow-origin ORIGIN] [-v]\n"+
			"              [-ops ADDR] [-gc-interval DURATION] [-cpuprofile FILE] [-memprofile FILE]\n"+
			"       flockd -version")
		fmt.Fprintln(stderr, "       flockd COMMAND ARGS (flockd COMMAND -h for its usage)")
		fmt.Fprintln(stderr, "\nCommands:")
		for _, name := range slices.Sorted(maps.Keys(commands)) {
			fmt.Fprintf(stderr, "  %-9s %s\n", name, commands[name].summary)
		}
		fmt.Fprintln(stderr, "\nWithout a command flockd serves a fake IronFlock platform (docs/flockd.md). Flags:")
		fs.PrintDefaults()
	}
	if help, err := parseArgs(fs, args); help || err != nil {
		return err
	}
	if *showVersion {
		_, err := fmt.Fprintln(stdout, "flockd", ver.String(version))
		return err
	}

	seed, err := loadSeed(*config)
	if err != nil {
		return err
	}
	stopProfile, err := prof.start()
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, stopProfile()) }()
	dir, err := data.folder(*config)
	if err != nil {
		return err
	}
	level := slog.LevelInfo
	if *verbose {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	logFileLimit(log)           // rlimit.go
	defer gcF.start(ctx, log)() // gc.go
	ops, err := opsF.start(log) // before the platform: /readyz answers 503 until it is provisioned
	if err != nil {
		return err
	}
	defer ops.close()

	dataOpts, reconcileOpts := data.options(dir)
	// The port opens once every backend is attached (p.Serve below).
	opts := append([]platformtest.Option{platformtest.WithAddr(*listen), platformtest.WithServeLater(), platformtest.WithLogger(log),
		platformtest.WithRecording(*recordMsgs, *recordBytes), platformtest.WithAuthLogLimit(*authLog)}, dataOpts...)
	opts = append(opts, edge.options()...)
	if *noRecord {
		opts = append(opts, platformtest.WithoutRecording())
	}
	if *strict {
		opts = append(opts, platformtest.WithStrictAuth())
	}
	opts = append(opts, platformtest.WithUploadMinRate(*uploadMinRate, platformtest.DefaultUploadGrace))
	if *spillDir != "" {
		opts = append(opts, platformtest.WithSpillDir(*spillDir))
	}
	if o := db.option(*data.allowDrop); o != nil {
		opts = append(opts, o)
	}
	consoleOpt, token := cons.console(*listen)
	if consoleOpt != nil {
		opts = append(opts, consoleOpt)
	}
	if hook, ok := ctx.Value(beforeStartKey{}).(func()); ok {
		hook()
	}
	p, err := platformtest.Start(opts...)
	if err != nil {
		return err
	}
	defer p.Close()
	ops.started(p)
	res, err := p.Reconcile(seed, reconcileOpts...)
	if err != nil {
		return fmt.Errorf("provision: %w", err)
	}
	sql, err := db.sqlAccess(log, p, res)
	if err != nil {
		return fmt.Errorf("direct SQL: %w", err)
	}
	if dir := p.DataDir(); dir != "" {
		if err := claim(dir, *config); err != nil { // owner.go
			return err
		}
	}
	if err := p.Serve(); err != nil {
		return err
	}
	stopDemo := func() {}
	if *config == "" {
		stopDemo = startDemo(p, res, log) // demo_device.go
		defer stopDemo()
	}
	log.Info("flockd listening", "ws_url", p.URL(), "http_url", p.HTTPURL(), "api_url", p.ManagementURL())
	if dir := p.DataDir(); dir != "" {
		log.Info("data folder", "path", dir)
	} else if *db.url == "" {
		log.Info("in memory: nothing is kept after flockd stops")
	} else {
		log.Info("in memory: only the tables' rows are kept after flockd stops, in PostgreSQL")
	}
	logConsole(log, p, cons, token)
	for i, in := range res.Installations {
		if i == maxLoggedInstallations {
			log.Info("more installations", "count", len(res.Installations)-i,
				"note", "not listed one by one; the environment file (-env-file) and the console list them all")
			break
		}
		log.Info("installation", "project", in.Device().Project().Name(), "device", in.Device().Name(),
			"app", in.App().Name(), "stage", string(in.Stage()), "realm", in.Realm())
	}
	if *envFile != "" {
		if err := writeEnvFile(*envFile, p, res, sql); err != nil {
			return fmt.Errorf("env file: %w", err)
		}
		log.Info("environment file written", "path", *envFile)
	}
	ops.provisioned()
	if ready != nil {
		ready(p)
	}
	<-ctx.Done()
	log.Info("flockd stopping")
	stopDemo()
	p.Close()
	log.Info("flockd stopped")
	return nil
}

// maxLoggedInstallations is how many installations the start's log lists
// one by one (a fleet of 100,000 would write as many lines).
const maxLoggedInstallations = 100

// beforeStartKey keys a func() in serve's context that runs before the
// platform starts (tests).
type beforeStartKey struct{}

// loadSeed reads the config file, or returns the demo seed.
func loadSeed(path string) (*platformtest.Seed, error) {
	if path == "" {
		return demoSeed(), nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	s, err := platformtest.ParseSeed(b, filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return s, nil
}

// demoTemplate is the data template of the demo app; demo_data.go seeds
// its rows.
const demoTemplate = `data:
  tables:
    - tablename: sensordata
      description: Readings of the demo sensors
      columns:
        - id: tsp
          name: Timestamp
          dataType: timestamp
        - id: temperature
          name: Temperature
          dataType: numeric
        - id: humidity
          name: Humidity
          dataType: numeric
        - id: source
          name: Source
          dataType: string
files:
  namespaces:
    - name: default
      description: Everything else
    - name: snapshots
      description: Camera snapshots of the demo sensors
      contentTypes: ["image/*"]
`

// demoToken is the bearer token of the demo's user alice, admin of the
// project demo, for the management REST API.
const demoToken = "alice-token"

// demoSeed is served without -config.
func demoSeed() *platformtest.Seed {
	return &platformtest.Seed{
		Projects: []platformtest.SeedProject{{
			Name:    "demo",
			Devices: []platformtest.SeedDevice{{Name: "sensor-1"}, {Name: "sensor-2"}},
		}},
		Apps: []platformtest.SeedApp{{Name: "quickstart", DataTemplate: demoTemplate, AITemplate: demoAITemplate}},
		Installations: []platformtest.SeedInstallation{
			{Project: "demo", Device: "sensor-1", App: "quickstart", Stage: "DEV", Rows: demoRows(0)},
			{Project: "demo", Device: "sensor-2", App: "quickstart", Stage: "DEV", Rows: demoRows(1)},
		},
		Users: []platformtest.SeedUser{{Name: "alice", Token: demoToken, Projects: map[string]string{"demo": "admin"}}},
	}
}
