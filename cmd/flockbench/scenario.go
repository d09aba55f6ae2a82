// This file holds the scenarios and the clients' common shape: a workload
// that runs operations while the harness lets it.

package main

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
)

// scenario is one kind of operation with a number in flight.
type scenario struct {
	Name string
	Call bool // a call of the callee; else an acknowledged publish
	// Serve: the client is the callee, serving invocations the driver (a
	// child process) calls with InFlight in flight.
	Serve    bool
	JSON     bool // the client speaks wamp.2.json; else wamp.2.msgpack
	InFlight int
	Title    string
}

// scenarios lists every scenario, in the order they run.
var scenarios = []scenario{
	{Name: "pub1", InFlight: 1, Title: "acked publish, 1 in flight"},
	{Name: "pub16", InFlight: 16, Title: "acked publish, 16 in flight"},
	{Name: "call1", Call: true, InFlight: 1, Title: "call, 1 caller"},
	{Name: "call16", Call: true, InFlight: 16, Title: "call, 16 callers"},
	{Name: "call1-json", Call: true, JSON: true, InFlight: 1, Title: "call in JSON, 1 caller"},
	{Name: "call16-json", Call: true, JSON: true, InFlight: 16, Title: "call in JSON, 16 callers"},
	{Name: "serve1", Serve: true, InFlight: 1, Title: "invocations served, 1 in flight"},
	{Name: "serve16", Serve: true, InFlight: 16, Title: "invocations served, 16 in flight"},
	{Name: "serve1-json", Serve: true, JSON: true, InFlight: 1, Title: "invocations served in JSON, 1 in flight"},
	{Name: "serve16-json", Serve: true, JSON: true, InFlight: 16, Title: "invocations served in JSON, 16 in flight"},
}

// target is what a workload needs to know of the fleet.
type target struct {
	Fleet     *fleet
	Procedure string  // the callee's procedure (call scenarios)
	Driver    *driver // the callers of the serve scenarios
}

// workload is a connected client ready to run one scenario. Exactly one
// of op and loop is set.
type workload struct {
	// op does one operation; workers 0..InFlight-1 call it concurrently.
	op func(ctx context.Context, worker int) error
	// loop runs operations from one goroutine: it asks ctl.take before
	// each one and calls ctl.done after each success, until take says no
	// and every operation started has ended.
	loop func(ctx context.Context, ctl *control) error
	// close disconnects the client.
	close func()
}

// clientKind builds workloads of one client.
type clientKind struct {
	Name string
	// supports reports whether the client runs sc.
	supports func(sc scenario) bool
	// open connects a client for sc.
	open func(ctx context.Context, t target, sc scenario) (*workload, error)
}

// control hands out operations to a workload and counts them.
type control struct {
	limit     int64 // 0: until stopped
	issued    atomic.Int64
	completed atomic.Int64
	stopped   atomic.Bool
	stopOnce  sync.Once
	stopCh    chan struct{} // closed by stop
}

// newControl returns a control of limit operations (0: until stopped).
func newControl(limit int64) *control {
	return &control{limit: limit, stopCh: make(chan struct{})}
}

// take reports whether one more operation may start.
func (c *control) take() bool {
	if c.stopped.Load() {
		return false
	}
	return c.limit == 0 || c.issued.Add(1) <= c.limit
}

// done counts one successful operation.
func (c *control) done() { c.completed.Add(1) }

// stop lets no more operations start.
func (c *control) stop() {
	c.stopped.Store(true)
	c.stopOnce.Do(func() { close(c.stopCh) })
}

// served counts an operation done by someone else (an invocation the
// driver called): it stops the control once the limit is reached.
func (c *control) served() {
	if !c.take() {
		return
	}
	if n := c.completed.Add(1); c.limit > 0 && n >= c.limit {
		c.stop()
	}
}

// pick returns the items of all whose names are listed in csv (all for
// "" or "all"), in all's order, or an error naming an unknown one.
func pick[T any](what, csv string, all []T, name func(T) string) ([]T, error) {
	if csv == "" || csv == "all" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(csv, ",") {
		want[strings.TrimSpace(n)] = true
	}
	var out []T
	for _, x := range all {
		if want[name(x)] {
			out = append(out, x)
			delete(want, name(x))
		}
	}
	for n := range want {
		var names []string
		for _, x := range all {
			names = append(names, name(x))
		}
		return nil, fmt.Errorf("unknown %s %q (have %s)", what, n, strings.Join(names, ", "))
	}
	return out, nil
}
