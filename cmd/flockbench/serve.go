// This file holds the serve scenarios: the measured client is the callee,
// registering the device function "serve" on the caller's device, and the
// driver (driver.go, a child process) calls it with the row, so that this
// process's CPU is the callee's alone. An operation is an invocation
// served: received, decoded, handled, its YIELD written.

package main

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/floorclient"
	"github.com/flockgo/ironflock/internal/wire"
)

// serveFunction is the device function of the serve scenarios.
const serveFunction = "serve"

// serveProcedure is serveFunction's URI on env's device.
func serveProcedure(env map[string]string) (string, error) {
	swarm, err1 := strconv.Atoi(env[wire.EnvSwarmKey])
	dev, err2 := strconv.Atoi(env[wire.EnvDeviceKey])
	app, err3 := strconv.Atoi(env[wire.EnvAppKey])
	if err1 != nil || err2 != nil || err3 != nil {
		return "", fmt.Errorf("environment without numeric %s, %s and %s", wire.EnvSwarmKey, wire.EnvDeviceKey, wire.EnvAppKey)
	}
	return wire.DeviceFunction(swarm, dev, app, env[wire.EnvStage], serveFunction), nil
}

// serving is what a callee's handler counts its invocations with: the
// control of the interval under way, if any.
type serving struct{ cur atomic.Pointer[control] }

func (s *serving) served() {
	if c := s.cur.Load(); c != nil {
		c.served()
	}
}

// workload has the driver call procedure, InFlight in flight, while the
// harness lets it: the callee counts each invocation it served.
func (s *serving) workload(t target, sc scenario, procedure string, close func()) *workload {
	return &workload{
		loop: func(ctx context.Context, ctl *control) error {
			s.cur.Store(ctl)
			defer s.cur.Store(nil)
			return t.Driver.run(ctx, procedure, sc.InFlight, ctl.stopCh)
		},
		close: close,
	}
}

// openSDKCallee registers "serve" with the SDK: typed, it decodes the
// arguments into a reading straight from the message (LazyArgs) and
// answers with it, written straight into the YIELD; else it answers with
// its first argument as decoded (Args).
func openSDKCallee(ctx context.Context, t target, sc scenario, typed bool) (*workload, error) {
	c, stop, err := sdkClient(ctx, t.Fleet.Caller, sc)
	if err != nil {
		return nil, err
	}
	s := &serving{}
	handler := func(_ context.Context, inv *client.Invocation) (any, error) {
		s.served()
		if len(inv.Args) == 0 {
			return nil, nil
		}
		return inv.Args[0], nil
	}
	var opts []client.RegisterOption
	if typed {
		handler = func(_ context.Context, inv *client.Invocation) (any, error) {
			var r reading
			if err := inv.Decode(&r); err != nil {
				return nil, err
			}
			s.served()
			return &r, nil
		}
		opts = append(opts, client.LazyArgs())
	}
	reg, err := c.RegisterDeviceFunction(ctx, serveFunction, handler, opts...)
	if err != nil {
		stop()
		return nil, err
	}
	return s.workload(t, sc, reg.Procedure(), stop), nil
}

// openFloorCallee registers "serve" with the floor client, which answers
// every invocation with a pre-encoded YIELD of the row.
func openFloorCallee(ctx context.Context, t target, sc scenario) (*workload, error) {
	proc, err := serveProcedure(t.Fleet.Caller)
	if err != nil {
		return nil, err
	}
	tpl, err := floorclient.YieldTemplate(floorFormat(sc), []any{row()}, nil)
	if err != nil {
		return nil, err
	}
	conn, err := dialFloorAs(ctx, t, t.Fleet.Caller, sc)
	if err != nil {
		return nil, err
	}
	if err := conn.Register(ctx, proc, map[string]any{wire.OptForceReregister: true}); err != nil {
		_ = conn.Close()
		return nil, err
	}
	s := &serving{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = conn.Serve(tpl, s.served) // ends with Close
	}()
	return s.workload(t, sc, proc, func() {
		_ = conn.Close()
		<-done
	}), nil
}
