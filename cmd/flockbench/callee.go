// This file holds the callee of the call scenarios: an SDK client that
// registers the device function "echo", run in a child process (flockbench
// -callee) so that its CPU is not counted with the caller's.

package main

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/flockgo/ironflock/client"
)

// calleeEnvVar carries the callee's device environment (JSON) to the
// child process.
const calleeEnvVar = "FLOCKBENCH_CALLEE_ENV"

// readyPrefix starts the line the callee prints once registered, followed
// by the procedure URI.
const readyPrefix = "flockbench-callee-ready "

// serveCallee connects an SDK client with env, registers the device
// function "echo" (it answers with its first argument at once), calls
// ready with the procedure URI and serves until ctx ends. calls, when not
// nil, counts the invocations answered.
func serveCallee(ctx context.Context, env map[string]string, calls *atomic.Int64, ready func(procedure string)) error {
	c, stop, err := startClient(ctx, env)
	if err != nil {
		return err
	}
	defer stop()
	reg, err := c.RegisterDeviceFunction(ctx, calleeFunction, func(_ context.Context, inv *client.Invocation) (any, error) {
		if calls != nil {
			calls.Add(1)
		}
		if len(inv.Args) == 0 {
			return nil, nil
		}
		return inv.Args[0], nil
	})
	if err != nil {
		return err
	}
	ready(reg.Procedure())
	<-ctx.Done()
	return nil
}

// calleeMain is flockbench -callee: it serves until SIGINT, SIGTERM or
// the end of its standard input (the parent is gone).
func calleeMain(ctx context.Context, stdin io.Reader, stdout io.Writer) error {
	env, err := childEnv(calleeEnvVar)
	if err != nil {
		return fmt.Errorf("callee: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_, _ = io.Copy(io.Discard, stdin)
		cancel()
	}()
	return serveCallee(ctx, env, nil, func(proc string) { fmt.Fprintln(stdout, readyPrefix+proc) })
}

// startCallee starts flockbench -callee with env and returns once it has
// registered, with the procedure URI.
func startCallee(ctx context.Context, env map[string]string) (*childProc, string, error) {
	p, err := startSelf("-callee", calleeEnvVar, env)
	if err != nil {
		return nil, "", err
	}
	proc, err := p.expect(ctx, readyPrefix)
	if err != nil {
		p.stop()
		return nil, "", fmt.Errorf("callee: %w", err)
	}
	return p, proc, nil
}
