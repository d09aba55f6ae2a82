// This file holds the driver of the serve scenarios: a child process
// (flockbench -driver) joined as the callee's device with the floor
// client, which calls the measured callee's procedure with the row, a
// number in flight, from "start" to "stop" on its standard input, so that
// the callers' CPU is not counted with the callee's.

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/internal/floorclient"
	"github.com/flockgo/ironflock/internal/wire"
)

// driverEnvVar carries the driver's device environment (JSON).
const driverEnvVar = "FLOCKBENCH_DRIVER_ENV"

// The driver's lines: ready once joined; stopped with the calls answered
// and the error, if any, once a run ended (on "stop", or on its own when
// a call failed).
const (
	driverReady   = "flockbench-driver-ready"
	driverStopped = "flockbench-driver-stopped "
)

// driver is the started driver process.
type driver struct {
	p  *childProc
	mu sync.Mutex // one run at a time
}

// driverURLKey is the key of the router's WebSocket URL in the
// environment the driver is given, beside its device's.
const driverURLKey = "FLOCKBENCH_WS_URL"

// startDriver starts flockbench -driver as the device of env on the
// router at wsURL and returns once it has joined.
func startDriver(ctx context.Context, wsURL string, env map[string]string) (*driver, error) {
	denv := map[string]string{driverURLKey: wsURL}
	for k, v := range env {
		denv[k] = v
	}
	p, err := startSelf("-driver", driverEnvVar, denv)
	if err != nil {
		return nil, err
	}
	if _, err := p.expect(ctx, driverReady); err != nil {
		p.stop()
		return nil, fmt.Errorf("driver: %w", err)
	}
	return &driver{p: p}, nil
}

// stop ends the driver process.
func (d *driver) stop() { d.p.stop() }

// run has the driver call procedure with inFlight calls in flight until
// until is closed, then waits for the calls under way to end. A call that
// fails ends the run at once with its error.
func (d *driver) run(ctx context.Context, procedure string, inFlight int, until <-chan struct{}) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, err := fmt.Fprintf(d.p.stdin, "start %s %d\n", procedure, inFlight); err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	stopped := func(line string) error {
		if _, msg, _ := strings.Cut(line, " "); msg != "" {
			return fmt.Errorf("driver: %s", msg)
		}
		return nil
	}
	for waiting := true; waiting; {
		select {
		case <-until:
			waiting = false
		case <-ctx.Done():
			waiting = false
		case l := <-d.p.lines:
			if line, ok := strings.CutPrefix(l, driverStopped); ok {
				return stopped(line) // ended on its own: a call failed
			}
		case <-d.p.done:
			return fmt.Errorf("driver exited:\n%s", d.p.log)
		}
	}
	if _, err := io.WriteString(d.p.stdin, "stop\n"); err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	wctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	line, err := d.p.expect(wctx, driverStopped)
	if err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	return stopped(line)
}

// driverMain is flockbench -driver: it joins with the environment it was
// given and runs what its standard input asks until it ends: "start
// PROCEDURE N" calls PROCEDURE with N calls in flight (pipelined) until
// "stop", then prints the stopped line with the calls answered; a call
// that fails prints it at once, with the error.
func driverMain(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	env, err := childEnv(driverEnvVar)
	if err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	r, err := realm(env)
	if err != nil {
		return err
	}
	// A connection per run: the floor client reads only while it calls, so
	// a link kept between runs would miss the router's pings and be closed
	// (flockd closes a link that missed two pongs).
	dial := func() (*floorclient.Conn, error) {
		return floorclient.Dial(ctx, env[driverURLKey], r, env[wire.EnvAppAuthID], env[wire.EnvAppAuthSecret])
	}
	conn, err := dial() // the fleet and credentials work
	if err != nil {
		return fmt.Errorf("driver: %w", err)
	}
	_ = conn.Close()
	fmt.Fprintln(stdout, driverReady)
	var (
		stop    atomic.Bool
		running sync.WaitGroup
		mu      sync.Mutex // guards stdout and reported
		// reported: the run under way has printed its stopped line.
		reported bool
	)
	report := func(n int, err error) {
		mu.Lock()
		defer mu.Unlock()
		if reported {
			return
		}
		reported = true
		msg := ""
		if err != nil {
			msg = " " + strings.ReplaceAll(err.Error(), "\n", " ")
		}
		fmt.Fprintf(stdout, "%s%d%s\n", driverStopped, n, msg)
	}
	var answered atomic.Int64
	sc := bufio.NewScanner(stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 3 && f[0] == "start":
			depth, err := strconv.Atoi(f[2])
			if err != nil {
				return fmt.Errorf("driver: %q: %w", sc.Text(), err)
			}
			tpl, err := floorclient.CallTemplate(f[1], []any{row()}, nil)
			if err != nil {
				return err
			}
			stop.Store(false)
			mu.Lock()
			reported = false
			mu.Unlock()
			running.Go(func() {
				n := 0
				c, err := dial()
				if err == nil {
					unwatch := c.Watch(ctx)
					n, err = c.Pipeline(ctx, tpl, depth, func() bool { return !stop.Load() }, func() {})
					unwatch()
					_ = c.Close()
				}
				answered.Store(int64(n))
				if err != nil {
					report(n, err) // at once: the parent learns of it before "stop"
				}
			})
		case len(f) == 1 && f[0] == "stop":
			stop.Store(true)
			running.Wait()
			report(int(answered.Load()), nil)
		default:
			return fmt.Errorf("driver: unknown command %q", sc.Text())
		}
	}
	stop.Store(true)
	running.Wait()
	return errors.Join(sc.Err(), ctx.Err())
}
