//go:build !race

// This file holds the two sides of the measurements: a platform with a
// fleet provisioned (what flockd holds, with flockd's default recording
// bounds) and a fleet of SDK clients, each device with its own
// installation and credentials, one subscription and one registration.
// Whichever side is measured runs in a child process (the test binary
// started again with childEnv set), so that its growth is its own.

package sessionmem

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/selfexec"
	"github.com/flockgo/ironflock/platformtest"
)

// childEnv names the role of the test binary started as a child:
// "platform" or "fleet"; childSessionsEnv the number of devices.
// childProfileEnv a folder where the measured child writes its heap
// profile and goroutine stacks once the sessions have joined.
const (
	childEnv         = "IRONFLOCK_SESSIONMEM_CHILD"
	childSessionsEnv = "IRONFLOCK_SESSIONMEM_SESSIONS"
	childProfileEnv  = "IRONFLOCK_SESSIONMEM_PROFILE"
	childNoRecordEnv = "IRONFLOCK_SESSIONMEM_NORECORD"
)

func TestMain(m *testing.M) {
	if role := os.Getenv(childEnv); role != "" {
		if os.Getenv(childProfileEnv) != "" {
			runtime.MemProfileRate = 1 // every allocation in the profile
		}
		if err := runChild(role, os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "sessionmem child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChild(role string, in io.Reader, out io.Writer) error {
	switch role {
	case "platform":
		n, err := strconv.Atoi(os.Getenv(childSessionsEnv))
		if err != nil {
			return fmt.Errorf("%s: %w", childSessionsEnv, err)
		}
		return servePlatform(n, os.Getenv(childNoRecordEnv) != "", in, out)
	case "fleet":
		return serveFleet(in, out)
	}
	return fmt.Errorf("unknown role %q", role)
}

// startPlatform starts a platform as flockd does by default (recording
// 10,000 messages, 64 MiB; none with noRecord) with n devices, each with
// an installation of one app, and returns their device environments.
func startPlatform(n int, noRecord bool) (*platformtest.Platform, []map[string]string, error) {
	rec := platformtest.WithRecording(10000, 64<<20)
	if noRecord {
		rec = platformtest.WithoutRecording()
	}
	p, err := platformtest.Start(platformtest.WithLogger(slog.New(slog.DiscardHandler)), rec)
	if err != nil {
		return nil, nil, err
	}
	app := p.AddApp("fleet", "")
	envs := make([]map[string]string, n)
	for i := range envs {
		envs[i] = p.Install(p.AddDevice(fmt.Sprintf("device-%05d", i)), app, platformtest.Dev).Env()
	}
	return p, envs, nil
}

// servePlatform is the platform child: it writes the fleet's device
// environments, then a Sample per line "sample" read, until in ends.
func servePlatform(n int, noRecord bool, in io.Reader, out io.Writer) error {
	p, envs, err := startPlatform(n, noRecord)
	if err != nil {
		return err
	}
	defer p.Close()
	enc := json.NewEncoder(out)
	if err := enc.Encode(envs); err != nil {
		return err
	}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		s, err := Take()
		if err != nil {
			return err
		}
		if err := writeProfiles("platform"); err != nil {
			return err
		}
		if err := enc.Encode(s); err != nil {
			return err
		}
	}
	return sc.Err()
}

// serveFleet is the fleet child: it reads the device environments,
// samples itself, connects a client per device, samples itself again and
// writes both samples; it stops the clients once in ends.
func serveFleet(in io.Reader, out io.Writer) error {
	r := bufio.NewReader(in)
	var envs []map[string]string
	if err := json.NewDecoder(r).Decode(&envs); err != nil {
		return fmt.Errorf("read the device environments: %w", err)
	}
	before, err := Take()
	if err != nil {
		return err
	}
	f, err := connect(context.Background(), envs)
	defer f.stop()
	if err != nil {
		return err
	}
	after, err := Take()
	if err != nil {
		return err
	}
	if err := writeProfiles("fleet"); err != nil {
		return err
	}
	if err := json.NewEncoder(out).Encode(PerSession{Sessions: len(envs), Before: before, After: after}); err != nil {
		return err
	}
	_, _ = io.Copy(io.Discard, r)
	return nil
}

// fleet is a set of connected SDK clients.
type fleet struct{ clients []*client.Client }

// connect starts a client per device environment, each with one
// subscription and one registration, a few at a time.
func connect(ctx context.Context, envs []map[string]string) (*fleet, error) {
	f := &fleet{clients: make([]*client.Client, len(envs))}
	log := slog.New(slog.DiscardHandler)
	var mu sync.Mutex
	var errs []error
	next := make(chan int)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range next {
				c, err := client.New(client.WithEnv(envs[i]), client.WithLogger(log))
				if err == nil {
					f.clients[i] = c
					err = idle(ctx, c)
				}
				if err != nil {
					mu.Lock()
					errs = append(errs, fmt.Errorf("device %d: %w", i, err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range envs {
		next <- i
	}
	close(next)
	wg.Wait()
	return f, errors.Join(errs...)
}

// idle joins c and gives it what an idle device holds: one subscription
// and one registration.
func idle(ctx context.Context, c *client.Client) error {
	if err := c.Start(ctx); err != nil {
		return err
	}
	if _, err := c.Subscribe(ctx, "com.example.commands", func(context.Context, *client.Event) {}); err != nil {
		return err
	}
	_, err := c.RegisterDeviceFunction(ctx, "status", func(context.Context, *client.Invocation) (any, error) {
		return "idle", nil
	})
	return err
}

// stop stops every client of f.
func (f *fleet) stop() {
	if f == nil {
		return
	}
	next := make(chan *client.Client)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for c := range next {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				_ = c.Stop(ctx)
				cancel()
			}
		})
	}
	for _, c := range f.clients {
		if c != nil {
			next <- c
		}
	}
	close(next)
	wg.Wait()
}

// child is a child process of the test binary in a role.
type child struct {
	in  io.WriteCloser
	out *json.Decoder
}

// startChild starts the test binary as role with extra environment,
// stopped at the end of tb.
func startChild(tb testing.TB, role string, env ...string) *child {
	tb.Helper()
	cmd := selfexec.Command("-test.run=^$")
	cmd.Env = append(append(os.Environ(), childEnv+"="+role), env...)
	if *profileFlag != "" {
		cmd.Env = append(cmd.Env, childProfileEnv+"="+*profileFlag)
	}
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(selfexec.Explain(err))
	}
	tb.Cleanup(func() {
		_ = in.Close()
		if err := cmd.Wait(); err != nil {
			tb.Errorf("the %s child: %v", role, err)
		}
	})
	return &child{in: in, out: json.NewDecoder(bufio.NewReader(out))}
}

// read decodes the child's next answer into v.
func (c *child) read(tb testing.TB, v any) {
	tb.Helper()
	if err := c.out.Decode(v); err != nil {
		tb.Fatalf("read from the child: %v", err)
	}
}

// sample asks a platform child for a Sample.
func (c *child) sample(tb testing.TB) Sample {
	tb.Helper()
	if _, err := io.WriteString(c.in, "sample\n"); err != nil {
		tb.Fatal(err)
	}
	var s Sample
	c.read(tb, &s)
	return s
}

// flockdPerSession measures what n idle device sessions cost a platform
// in a child process: it samples the platform with its fleet provisioned,
// connects n SDK clients from this process and samples it again. With
// noRecord the platform records no traffic: the recording is a ring
// bounded for the whole platform (10,000 messages by default), which
// fills with the sessions' first messages up to about 2,500 sessions and
// then costs nothing more per session.
func flockdPerSession(tb testing.TB, n int, noRecord bool) PerSession {
	tb.Helper()
	env := []string{fmt.Sprintf("%s=%d", childSessionsEnv, n)}
	if noRecord {
		env = append(env, childNoRecordEnv+"=1")
	}
	c := startChild(tb, "platform", env...)
	var envs []map[string]string
	c.read(tb, &envs)
	before := c.sample(tb)
	f, err := connect(context.Background(), envs)
	defer f.stop()
	if err != nil {
		tb.Fatal(err)
	}
	return PerSession{Sessions: n, Before: before, After: c.sample(tb)}
}

// clientPerSession measures what n connected SDK clients, each with one
// subscription and one registration, cost one process: the clients run in
// a child process, the platform in this one.
func clientPerSession(tb testing.TB, n int) PerSession {
	tb.Helper()
	p, envs, err := startPlatform(n, true)
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close()
	c := startChild(tb, "fleet")
	if err := json.NewEncoder(c.in).Encode(envs); err != nil {
		tb.Fatal(err)
	}
	var ps PerSession
	c.read(tb, &ps)
	_ = c.in.Close()
	return ps
}

// writeProfiles writes the heap profile and the goroutine stacks of the
// process to the folder childProfileEnv names, if any, as
// <role>.heap.pprof and <role>.goroutines.txt (each sample overwrites
// them: the last is of the sessions joined).
func writeProfiles(role string) error {
	dir := os.Getenv(childProfileEnv)
	if dir == "" {
		return nil
	}
	for _, p := range []struct {
		name, file string
		debug      int
	}{{"heap", role + ".heap.pprof", 0}, {"goroutine", role + ".goroutines.txt", 1}} {
		f, err := os.Create(filepath.Join(dir, p.file))
		if err != nil {
			return err
		}
		err = pprof.Lookup(p.name).WriteTo(f, p.debug)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
