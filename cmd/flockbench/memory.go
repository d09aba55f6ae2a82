// This file holds -memory: the resident memory of the footprint programs
// (internal/footprint: the device program with the SDK and the same job
// written by hand) once idle, and what 1,000 subscriptions add to an SDK
// client, each in a child process whose VmRSS is read from /proc.

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/flockgo/ironflock/internal/footprint"
)

// programMemory is what one footprint program takes once idle.
type programMemory struct {
	Program string   `json:"program"`
	Binary  int64    `json:"binary_bytes"` // stripped, -trimpath
	Idle    resident `json:"idle"`
}

// subscriptionMemory is what Count subscriptions add to an SDK client,
// measured after a garbage collection.
type subscriptionMemory struct {
	Count      int      `json:"count"`
	Before     resident `json:"before"`
	After      resident `json:"after"`
	HeapBefore int64    `json:"heap_before_bytes"`
	HeapAfter  int64    `json:"heap_after_bytes"`
}

// perThousand returns the growth of RSS and Go heap per 1,000
// subscriptions.
func (s subscriptionMemory) perThousand() (rss, heap float64) {
	n := float64(s.Count) / 1000
	return float64(s.After.RSS-s.Before.RSS) / n, float64(s.HeapAfter-s.HeapBefore) / n
}

// memoryReport is the outcome of -memory.
type memoryReport struct {
	Platform      string             `json:"platform"`
	Settle        string             `json:"settle"`
	Programs      []programMemory    `json:"programs"`
	Subscriptions subscriptionMemory `json:"subscriptions"`
}

// footprintPrograms are the programs measured, by name.
var footprintPrograms = []struct{ name, pkg string }{
	{"sdk", footprint.SDKProgram},
	{"handwritten", footprint.HandwrittenProgram},
}

// runMemory builds the footprint programs for this machine, runs each as
// the caller's device until it is ready and settle has passed, and
// measures the subscriptions of an SDK client on the callee's device.
func runMemory(ctx context.Context, o *options, f *fleet, stdout, stderr io.Writer) error {
	dir, err := os.MkdirTemp("", "flockbench-memory-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	r := memoryReport{Platform: runtime.GOOS + "/" + runtime.GOARCH, Settle: o.settle.String()}
	for _, p := range footprintPrograms {
		fmt.Fprintf(stderr, "flockbench: memory of %s\n", p.name)
		bin, size, err := footprint.Build(ctx, ".", dir, footprint.Target{GOARCH: runtime.GOARCH}, p.pkg)
		if err != nil {
			return fmt.Errorf("build %s (run flockbench -memory inside the repository): %w", p.pkg, err)
		}
		m, err := measureProgram(ctx, bin, f.Caller, dir, o.settle)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		m.Program, m.Binary = p.name, size
		r.Programs = append(r.Programs, m)
	}
	fmt.Fprintf(stderr, "flockbench: memory of %d subscriptions\n", o.subscriptions)
	if r.Subscriptions, err = measureSubscriptions(ctx, f.Callee, o.subscriptions); err != nil {
		return err
	}
	if o.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(r)
	}
	return printMemory(stdout, r)
}

// measureProgram runs bin with the device environment env (the agent's
// files looked for in dir, where there are none) until it prints "ready",
// waits settle, and returns its resident memory then and its peak.
func measureProgram(ctx context.Context, bin string, env map[string]string, dir string, settle time.Duration) (programMemory, error) {
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "IRONFLOCK_ENV_DIR="+dir)
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	p, err := startChild(cmd)
	if err != nil {
		return programMemory{}, err
	}
	defer p.stop()
	if _, err := p.expect(ctx, "ready"); err != nil {
		return programMemory{}, err
	}
	t := time.NewTimer(settle)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return programMemory{}, ctx.Err()
	}
	var m programMemory
	m.Idle, err = residentMemory(cmd.Process.Pid)
	return m, err
}

// resident is the resident memory of a process, in bytes, from
// /proc/<pid>/status: VmRSS, of which RssAnon (heap, stacks: the
// process's own) and RssFile (pages of the program file and libraries),
// and the peak VmHWM.
type resident struct {
	RSS  int64 `json:"rss_bytes"`
	Anon int64 `json:"rss_anon_bytes"`
	File int64 `json:"rss_file_bytes"`
	Peak int64 `json:"peak_rss_bytes"`
}

// residentMemory reads the resident memory of process pid.
func residentMemory(pid int) (resident, error) {
	var r resident
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return r, fmt.Errorf("resident memory (Linux /proc needed): %w", err)
	}
	fields := map[string]*int64{"VmRSS": &r.RSS, "RssAnon": &r.Anon, "RssFile": &r.File, "VmHWM": &r.Peak}
	for _, line := range strings.Split(string(b), "\n") {
		key, val, _ := strings.Cut(line, ":")
		dst, ok := fields[key]
		if !ok {
			continue
		}
		kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(val), " kB"), 10, 64)
		if err != nil {
			return r, fmt.Errorf("/proc/%d/status: %s: %w", pid, key, err)
		}
		*dst = kb << 10
	}
	if r.RSS == 0 {
		return r, fmt.Errorf("/proc/%d/status has no VmRSS", pid)
	}
	return r, nil
}

// measureSubscriptions starts an SDK client on env in a child process
// (flockbench -subscriber) and reads its resident memory and Go heap,
// after a garbage collection, once joined and once subscribed to n
// topics.
func measureSubscriptions(ctx context.Context, env map[string]string, n int) (subscriptionMemory, error) {
	p, err := startSelf("-subscriber", subscriberEnvVar, env)
	if err != nil {
		return subscriptionMemory{}, err
	}
	defer p.stop()
	s := subscriptionMemory{Count: n}
	read := func(prefix string) (r resident, heap int64, err error) {
		rest, err := p.expect(ctx, prefix)
		if err != nil {
			return r, 0, fmt.Errorf("subscriber: %w", err)
		}
		if heap, err = strconv.ParseInt(rest, 10, 64); err != nil {
			return r, 0, fmt.Errorf("subscriber: %q: %w", rest, err)
		}
		r, err = residentMemory(p.cmd.Process.Pid)
		return r, heap, err
	}
	if s.Before, s.HeapBefore, err = read(subscriberReady); err != nil {
		return s, err
	}
	if _, err := fmt.Fprintln(p.stdin, n); err != nil {
		return s, err
	}
	s.After, s.HeapAfter, err = read(subscriberDone)
	return s, err
}

// printMemory writes the report as tables.
func printMemory(w io.Writer, r memoryReport) error {
	fmt.Fprintf(w, "flockbench -memory: %s; footprint programs (internal/footprint) built stripped,\n", r.Platform)
	fmt.Fprintf(w, "memory from /proc/<pid>/status once the job is done and %s idle\n\n", r.Settle)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "program\tbinary\tidle RSS\tanonymous\tfile\tpeak RSS\t")
	for _, p := range r.Programs {
		m := p.Idle
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t\n", p.Program, megabytes(p.Binary), megabytes(m.RSS), megabytes(m.Anon), megabytes(m.File), megabytes(m.Peak))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Subscriptions
	rss, heap := s.perThousand()
	fmt.Fprintf(w, "\nSDK client, %d subscriptions (after a GC): RSS %s → %s, Go heap %s → %s\n",
		s.Count, megabytes(s.Before.RSS), megabytes(s.After.RSS), megabytes(s.HeapBefore), megabytes(s.HeapAfter))
	_, err := fmt.Fprintf(w, "per 1,000 subscriptions: RSS %+.0f kB, Go heap %+.0f kB\n", rss/1024, heap/1024)
	return err
}

// megabytes formats n bytes in MB (10^6).
func megabytes(n int64) string { return fmt.Sprintf("%.2f MB", float64(n)/1e6) }
