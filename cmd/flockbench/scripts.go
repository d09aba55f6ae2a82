// This file holds the optional comparison scripts (autobahn-js and
// autobahn-python under scripts/) that -with-js and -with-python run
// after the Go clients, against the same flockd and callee.

package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// script is one comparison program.
type script struct {
	Client string // its name in the table
	Dir    string // below -scripts
	Note   string // how it measures, printed under the table
	// command returns the program and arguments to run in dir.
	command func(dir string) ([]string, error)
	// supports reports whether it runs sc.
	supports func(sc scenario) bool
}

var jsScript = script{
	Client: "autobahn-js", Dir: "autobahn-js",
	Note: "CPU from node's process.cpuUsage(); allocations not measured",
	command: func(dir string) ([]string, error) {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", "autobahn")); err != nil {
			return nil, fmt.Errorf("autobahn-js is not installed: run npm install in %s", dir)
		}
		cmd := []string{"node"}
		if nodeMajor() < 22 { // autobahn 26 needs the WebSocket of Node.js 22
			cmd = append(cmd, "--experimental-websocket")
		}
		return append(cmd, "bench.js"), nil
	},
	supports: notServe,
}

var pyScript = script{
	Client: "autobahn-python", Dir: "autobahn-python",
	Note: "CPU from Python's resource.getrusage(RUSAGE_SELF); allocations not measured",
	command: func(string) ([]string, error) {
		py := os.Getenv("FLOCKBENCH_PYTHON")
		if py == "" {
			py = "python3"
		}
		return []string{py, "bench.py"}, nil
	},
	supports: func(sc scenario) bool { return !sc.Serve && !sc.JSON },
}

// nodeMajor returns the major version of node on PATH (0 when unknown).
func nodeMajor() int {
	out, err := exec.Command("node", "--version").Output()
	if err != nil {
		return 0
	}
	v := strings.TrimPrefix(strings.TrimSpace(string(out)), "v")
	n, _ := strconv.Atoi(strings.SplitN(v, ".", 2)[0])
	return n
}

// runScripts runs the requested comparison scripts and returns their
// results.
func runScripts(ctx context.Context, o *options, t target, scs []scenario, progress io.Writer) ([]result, error) {
	var out []result
	for _, s := range []struct {
		on bool
		script
	}{{o.withJS, jsScript}, {o.withPy, pyScript}} {
		if !s.on {
			continue
		}
		fmt.Fprintf(progress, "flockbench: %s\n", s.Client)
		rs, err := runScript(ctx, s.script, filepath.Join(o.scriptsDir, s.Dir), o, t, scs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Client, err)
		}
		out = append(out, rs...)
	}
	return out, nil
}

// scriptLine is what a script prints for each scenario.
type scriptLine struct {
	Scenario string  `json:"scenario"`
	Ops      int64   `json:"ops"`
	WallMs   float64 `json:"wall_ms"`
	CPUMicro float64 `json:"cpu_us"`
}

// runScript runs one script with the connection, payload and scenarios in
// its environment and reads its results.
func runScript(ctx context.Context, s script, dir string, o *options, t target, all []scenario) ([]result, error) {
	var scs []scenario
	for _, sc := range all {
		if s.supports(sc) {
			scs = append(scs, sc)
		}
	}
	if len(scs) == 0 {
		return nil, nil
	}
	argv, err := s.command(dir)
	if err != nil {
		return nil, err
	}
	env := t.Fleet.Caller
	r, err := realm(env)
	if err != nil {
		return nil, err
	}
	row, err := json.Marshal(row())
	if err != nil {
		return nil, err
	}
	kwargs, err := json.Marshal(publishKwargs(env))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, sc := range scs {
		names = append(names, sc.Name)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"FLOCKBENCH_WS_URL="+t.Fleet.WSURL,
		"FLOCKBENCH_REALM="+r,
		"FLOCKBENCH_AUTHID="+env[wire.EnvAppAuthID],
		"FLOCKBENCH_SECRET="+env[wire.EnvAppAuthSecret],
		"FLOCKBENCH_TOPIC="+benchTopic,
		"FLOCKBENCH_PROCEDURE="+t.Procedure,
		"FLOCKBENCH_ROW="+string(row),
		"FLOCKBENCH_KWARGS="+string(kwargs),
		"FLOCKBENCH_SCENARIOS="+strings.Join(names, ","),
		"FLOCKBENCH_DURATION_MS="+strconv.FormatInt(o.duration.Milliseconds(), 10),
		"FLOCKBENCH_WARMUP_MS="+strconv.FormatInt(o.warmup.Milliseconds(), 10),
		"FLOCKBENCH_COUNT="+strconv.Itoa(o.count),
	)
	cmd.SysProcAttr = childAttr()
	cmd.WaitDelay = 5 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(argv, " "), err, stderr.String())
	}
	samples := map[string][]sample{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if !bytes.HasPrefix(sc.Bytes(), []byte("{")) {
			continue // a log line of the library
		}
		var l scriptLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			return nil, fmt.Errorf("unexpected output %q: %w", sc.Text(), err)
		}
		samples[l.Scenario] = append(samples[l.Scenario], sample{Ops: l.Ops,
			Wall: time.Duration(l.WallMs * float64(time.Millisecond)),
			CPU:  time.Duration(l.CPUMicro * float64(time.Microsecond))})
	}
	var rs []result
	for _, x := range scs {
		if len(samples[x.Name]) != o.count {
			return nil, fmt.Errorf("%d intervals of %s, want %d:\n%s", len(samples[x.Name]), x.Name, o.count, out)
		}
		r := newResult(x.Name, s.Client, samples[x.Name])
		r.AllocsPerOp, r.BytesPerOp, r.Note = 0, 0, s.Note
		rs = append(rs, r)
	}
	return rs, nil
}

// mergeResults places the scripts' results after the Go clients' of the
// same scenario.
func mergeResults(rs, extra []result) []result {
	if len(extra) == 0 {
		return rs
	}
	var out []result
	seen := map[string]bool{}
	for i, r := range rs {
		out = append(out, r)
		if i+1 < len(rs) && rs[i+1].Scenario == r.Scenario {
			continue
		}
		seen[r.Scenario] = true
		for _, x := range extra {
			if x.Scenario == r.Scenario {
				out = append(out, x)
			}
		}
	}
	for _, x := range extra {
		if !seen[x.Scenario] {
			out = append(out, x)
		}
	}
	return out
}
