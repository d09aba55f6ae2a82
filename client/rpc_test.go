// This file tests device functions and calls: results, progress,
// cancellation, timeouts and registration options.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func TestDeviceFunction(t *testing.T) {
	f := newFleet(t)
	callee := connect(t, f.a)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	type sum struct {
		Total int    `json:"total"`
		By    string `json:"by"`
	}
	reg, err := callee.RegisterDeviceFunction(ctx, "add", func(ctx context.Context, inv *client.Invocation) (any, error) {
		var nums []int
		for _, a := range inv.Args {
			n, err := client.Decode[int](a)
			if err != nil {
				return nil, &client.WampError{URI: "com.example.error.not_a_number", Args: []any{err.Error()}}
			}
			nums = append(nums, n)
		}
		total := 0
		for _, n := range nums {
			total += n
		}
		return sum{Total: total, By: inv.CallerAuthID}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%d.%d.%d.DEV.add", f.a.Device().Project().Key(), f.a.Device().Key(), f.app.Key())
	if reg.Procedure() != want {
		t.Errorf("procedure = %q, want %q", reg.Procedure(), want)
	}
	res, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "add", 1, 2, 3)
	if err != nil {
		t.Fatal(err)
	}
	var got sum
	if err := res.Decode(&got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(sum{Total: 6, By: f.b.Device().Serial()}, got); diff != "" {
		t.Errorf("result (-want +got):\n%s", diff)
	}
	_, err = caller.CallDeviceFunction(ctx, f.a.Device().Key(), "add", "x")
	var we *client.WampError
	if !errors.As(err, &we) || we.URI != "com.example.error.not_a_number" {
		t.Fatalf("err = %v, want the handler's WampError", err)
	}
	// No metadata on calls.
	for _, c := range f.p.Calls() {
		if _, ok := c.Kwargs["DEVICE_SERIAL_NUMBER"]; ok {
			t.Errorf("call %s carries device metadata: %v", c.URI, c.Kwargs)
		}
	}
	if err := reg.Unregister(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = caller.CallDeviceFunction(ctx, f.a.Device().Key(), "add", 1)
	if client.WampURI(err) != "wamp.error.no_such_procedure" {
		t.Errorf("after Unregister: err = %v", err)
	}
}

func TestYieldShapes(t *testing.T) {
	f := newFleet(t)
	callee := connect(t, f.a)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	key := f.a.Device().Key()
	handlers := map[string]client.InvocationHandler{
		"value": func(context.Context, *client.Invocation) (any, error) { return 7, nil },
		"none":  func(context.Context, *client.Invocation) (any, error) { return nil, nil },
		"result": func(context.Context, *client.Invocation) (any, error) {
			return &client.Result{Args: []any{1, "a"}, Kwargs: map[string]any{"k": true}}, nil
		},
		"kwargs": func(context.Context, *client.Invocation) (any, error) { return client.Kwargs{"only": 1}, nil },
		"plain":  func(context.Context, *client.Invocation) (any, error) { return nil, errors.New("boom") },
		"panic":  func(context.Context, *client.Invocation) (any, error) { panic("oops") },
	}
	for name, h := range handlers {
		if _, err := callee.RegisterDeviceFunction(ctx, name, h); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string, wantArgs []any, wantKw map[string]any) {
		t.Helper()
		res, err := caller.CallDeviceFunction(ctx, key, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if diff := cmp.Diff(wantArgs, res.Args); diff != "" {
			t.Errorf("%s args (-want +got):\n%s", name, diff)
		}
		if diff := cmp.Diff(wantKw, res.Kwargs); diff != "" {
			t.Errorf("%s kwargs (-want +got):\n%s", name, diff)
		}
	}
	check("value", []any{int64(7)}, nil)
	check("none", nil, nil)
	check("result", []any{int64(1), "a"}, map[string]any{"k": true})
	check("kwargs", []any{}, map[string]any{"only": int64(1)})
	for _, name := range []string{"plain", "panic"} {
		_, err := caller.CallDeviceFunction(ctx, key, name)
		var we *client.WampError
		if !errors.As(err, &we) || we.URI != "wamp.error.runtime_error" {
			t.Errorf("%s: err = %v, want wamp.error.runtime_error", name, err)
		}
	}
}

func TestProgressiveResults(t *testing.T) {
	f := newFleet(t)
	callee := connect(t, f.a)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	if _, err := callee.RegisterDeviceFunction(ctx, "count", func(ctx context.Context, inv *client.Invocation) (any, error) {
		for i := range 3 {
			if err := inv.SendProgress(ctx, i); err != nil {
				return nil, err
			}
		}
		return "done", nil
	}); err != nil {
		t.Fatal(err)
	}
	var progress []any
	res, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "count", client.Progress(func(r *client.Result) {
		progress = append(progress, r.Args[0])
	}))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]any{int64(0), int64(1), int64(2)}, progress); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if res.Args[0] != "done" {
		t.Errorf("final = %v", res.Args)
	}
}

func TestCallCancellation(t *testing.T) {
	f := newFleet(t)
	callee := connect(t, f.a)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	started := make(chan struct{})
	handlerCtxDone := make(chan error, 1)
	if _, err := callee.RegisterDeviceFunction(ctx, "wait", func(ctx context.Context, inv *client.Invocation) (any, error) {
		close(started)
		<-ctx.Done()
		handlerCtxDone <- ctx.Err()
		return nil, ctx.Err()
	}); err != nil {
		t.Fatal(err)
	}
	callCtx, cancel := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := caller.CallDeviceFunction(callCtx, f.a.Device().Key(), "wait")
		errc <- err
	}()
	<-started
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Fatalf("call err = %v, want context.Canceled", err)
	}
	select {
	case err := <-handlerCtxDone:
		if err == nil {
			t.Fatal("handler context not ended")
		}
	case <-time.After(15 * time.Second):
		t.Fatal("CANCEL did not reach the callee: its context never ended")
	}
}

// TestCallTimeout holds the call at the router, so that only the client's
// deadline can end it (the router's own call timeout never starts), and
// checks that the router was told the timeout.
func TestCallTimeout(t *testing.T) {
	f := newFleet(t)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	uri := fmt.Sprintf("%d.%d.%d.DEV.slow", f.a.Device().Project().Key(), f.a.Device().Key(), f.app.Key())
	held := f.p.Intercept(platformtest.Fault{Kind: platformtest.KindCall, URI: uri, Hang: true})
	defer held.Cancel()
	// A second: the CALL must leave the client before the deadline, which a
	// loaded machine may not manage within a few milliseconds.
	_, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "slow", client.Timeout(time.Second))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	seen := held.Seen()
	if len(seen) != 1 || seen[0].Options["timeout"] != int64(1000) {
		t.Errorf("held calls = %+v, want one announcing timeout 1000 ms", seen)
	}
}

func TestRegisterNeedsDeviceKey(t *testing.T) {
	f := newFleet(t)
	env := f.a.Env()
	env["DEVICE_KEY"] = ""
	c := newClient(t, env)
	_, err := c.RegisterDeviceFunction(ctxT(t), "x", func(context.Context, *client.Invocation) (any, error) { return nil, nil })
	if !errors.Is(err, client.ErrMissingConfig) {
		t.Fatalf("err = %v, want ErrMissingConfig", err)
	}
}

func TestRegisterTwiceRefused(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	h := func(context.Context, *client.Invocation) (any, error) { return nil, nil }
	if _, err := c.Register(ctxT(t), "dup", h); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Register(ctxT(t), "dup", h); !errors.Is(err, client.ErrInvalidArgument) {
		t.Fatalf("second Register: err = %v", err)
	}
}

func TestForceReregisterOption(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	h := func(context.Context, *client.Invocation) (any, error) { return nil, nil }
	if _, err := c.Register(ctxT(t), "plain", h, client.ForceReregister(false)); err != nil {
		t.Fatal(err)
	}
	var opts map[string]any
	for _, m := range f.p.Recorded() {
		if m.Kind == "register" {
			opts = m.Options
		}
	}
	if diff := cmp.Diff(map[string]any{"force_reregister": false}, opts); diff != "" {
		t.Errorf("REGISTER options (-want +got):\n%s", diff)
	}
}
