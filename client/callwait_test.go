// This file tests WaitForRegistration: calls retried while their
// procedure is not registered, within the caller's bound and context.

package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestWaitForRegistrationRegisteredLater: a call made before the callee
// registers is retried and answered once the function is there.
func TestWaitForRegistrationRegisteredLater(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	callee := connect(t, f.a)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	uri := functionURI(f, "late")

	type answer struct {
		res *client.Result
		err error
	}
	done := make(chan answer, 1)
	go func() {
		res, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "late", client.WaitForRegistration(time.Minute))
		done <- answer{res, err}
	}()
	eventually(t, 10*time.Second, "the first attempt refused", func() bool { return count(f.p, platformtest.KindCall, uri) >= 1 })
	if _, err := callee.RegisterDeviceFunction(ctx, "late", func(context.Context, *client.Invocation) (any, error) { return "here", nil }); err != nil {
		t.Fatal(err)
	}
	a := <-done
	if a.err != nil {
		t.Fatalf("call waiting for the registration: %v", a.err)
	}
	if a.res.Args[0] != "here" {
		t.Errorf("result %v", a.res.Args)
	}
	if n := count(f.p, platformtest.KindCall, uri); n < 2 {
		t.Errorf("%d attempts recorded, want the refused one and the answered one", n)
	}
}

// TestWaitForRegistrationNeverRegistered: a function nobody registers
// fails with wamp.error.no_such_procedure once the bound has passed,
// after more than one attempt; without the option it fails at once.
func TestWaitForRegistrationNeverRegistered(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	caller := connect(t, f.b)
	ctx := ctxT(t)
	uri := functionURI(f, "absent")

	_, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "absent")
	if client.WampURI(err) != wire.ErrNoSuchProcedure || count(f.p, platformtest.KindCall, uri) != 1 {
		t.Fatalf("without the option: %v after %d attempts, want one refusal", err, count(f.p, platformtest.KindCall, uri))
	}

	const bound = 300 * time.Millisecond
	f.p.ClearRecorded()
	start := time.Now()
	_, err = caller.CallDeviceFunction(ctx, f.a.Device().Key(), "absent", client.WaitForRegistration(bound))
	waited := time.Since(start)
	var oe *client.OpError
	if client.WampURI(err) != wire.ErrNoSuchProcedure || !errors.As(err, &oe) || oe.Op != "CallDeviceFunction" || oe.URI != uri {
		t.Fatalf("call of a function never registered: %v", err)
	}
	if waited < bound {
		t.Errorf("gave up after %v, before the bound of %v", waited, bound)
	}
	if n := count(f.p, platformtest.KindCall, uri); n < 2 {
		t.Errorf("%d attempts within the bound, want retries", n)
	}
	t.Logf("%v after %d attempts: %v", waited.Round(time.Millisecond), count(f.p, platformtest.KindCall, uri), err)

	// Call takes the option too.
	if _, err := caller.Call(ctx, uri, client.WaitForRegistration(bound)); client.WampURI(err) != wire.ErrNoSuchProcedure {
		t.Errorf("Call with the option: %v", err)
	}
	_, err = caller.CallDeviceFunction(ctx, f.a.Device().Key(), "absent", client.WaitForRegistration(-time.Second))
	if !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("negative bound: %v, want ErrInvalidArgument", err)
	}
}

// TestWaitForRegistrationContext: the caller's context ends the wait.
func TestWaitForRegistrationContext(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	caller := connect(t, f.b)
	uri := functionURI(f, "absent")
	ctx, cancel := context.WithCancel(ctxT(t))
	done := make(chan error, 1)
	go func() {
		_, err := caller.CallDeviceFunction(ctx, f.a.Device().Key(), "absent", client.WaitForRegistration(time.Hour))
		done <- err
	}()
	eventually(t, 10*time.Second, "the first attempt refused", func() bool { return count(f.p, platformtest.KindCall, uri) >= 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("call canceled while waiting: %v, want context.Canceled", err)
	}
}

// functionURI is the URI of device a's function name.
func functionURI(f *fleet, name string) string {
	return wire.DeviceFunction(f.a.Device().Project().Key(), f.a.Device().Key(), f.app.Key(), string(platformtest.Dev), name)
}
