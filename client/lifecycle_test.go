// This file tests Start, Stop, Run, waiting before Start, and refusals of
// the router's authorisation.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestStartStopLifecycle(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	st := newStates()
	c := newClient(t, f.a.Env(), st.option())
	if c.State() != client.StateIdle || c.IsConnected() {
		t.Fatalf("new client: state %s connected %v", c.State(), c.IsConnected())
	}
	ctx := ctxT(t)
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if !c.IsConnected() || c.State() != client.StateConnected {
		t.Fatalf("after Start: state %s", c.State())
	}
	if err := c.Start(ctx); !errors.Is(err, client.ErrAlreadyStarted) {
		t.Errorf("second Start: %v", err)
	}
	sessions := f.p.Sessions()
	if len(sessions) != 1 || sessions[0].AuthID != f.a.Device().Serial() || sessions[0].Realm != f.a.Realm() {
		t.Fatalf("sessions = %+v", sessions)
	}
	hookRan := make(chan struct{})
	c.OnStop(func(context.Context) { close(hookRan) })
	if _, err := c.Subscribe(ctx, "com.example.x", func(context.Context, *client.Event) {}); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	<-hookRan
	if err := c.Stop(ctx); err != nil {
		t.Errorf("second Stop: %v", err)
	}
	if c.State() != client.StateStopped {
		t.Errorf("state after Stop = %s", c.State())
	}
	if err := c.Start(ctx); !errors.Is(err, client.ErrStopped) {
		t.Errorf("Start after Stop: %v", err)
	}
	if err := c.Publish(ctx, "com.example.x", 1); !errors.Is(err, client.ErrStopped) {
		t.Errorf("Publish after Stop: %v", err)
	}
	eventually(t, 15*time.Second, "session gone from the router", func() bool { return len(f.p.Sessions()) == 0 })
	st.await(t, client.StateStopped, time.Second)
}

func TestStartNeedsKeys(t *testing.T) {
	f := newFleet(t)
	env := f.a.Env()
	delete(env, "SWARM_KEY")
	c := newClient(t, env)
	if err := c.Start(ctxT(t)); !errors.Is(err, client.ErrMissingConfig) {
		t.Fatalf("Start without SWARM_KEY: %v", err)
	}
}

func TestNotConnectedAfterWait(t *testing.T) {
	f := newFleet(t)
	c := newClient(t, f.a.Env(), client.WithSessionWait(50*time.Millisecond))
	err := c.Publish(ctxT(t), "com.example.x", 1) // before Start
	if !errors.Is(err, client.ErrNotConnected) {
		t.Fatalf("err = %v, want ErrNotConnected", err)
	}
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.Op != "Publish" || oe.URI != "com.example.x" {
		t.Errorf("error does not name the operation and topic: %v", err)
	}
}

func TestNotConnectedNamesTheWaitRounded(t *testing.T) {
	f := tableFleet(t)
	c := newClient(t, f.a.Env(), client.WithReconnectWindow(time.Second))
	// A table operation waits for the rest of its window: just under 1 s
	// by the time it starts waiting (999.998123ms, say), shown rounded.
	_, err := c.AppendToTable(ctxT(t), "sensordata", sensorRow{Tsp: t0})
	rounded := regexp.MustCompile(`no session after (\d+(\.\d)?s|\d+ms)\)`)
	if !errors.Is(err, client.ErrNotConnected) || !rounded.MatchString(err.Error()) {
		t.Fatalf("err = %v, want ErrNotConnected naming the wait rounded", err)
	}
}

func TestOperationsBeforeStartWaitForIt(t *testing.T) {
	f := newFleet(t)
	c := newClient(t, f.a.Env())
	waiting := onWait(c)
	errc := make(chan error, 1)
	go func() { errc <- c.Publish(context.Background(), "com.example.early", 1) }()
	<-waiting
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatalf("publish issued before Start: %v", err)
	}
}

func TestStopEndsWaitingOperations(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	callee := connect(t, f.a)
	caller := newClient(t, f.b.Env())
	if err := caller.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	if _, err := callee.RegisterDeviceFunction(ctxT(t), "hang", func(ctx context.Context, inv *client.Invocation) (any, error) {
		close(started)
		<-ctx.Done()
		return nil, nil
	}); err != nil {
		t.Fatal(err)
	}
	callErr := make(chan error, 1)
	go func() {
		_, err := caller.CallDeviceFunction(context.Background(), f.a.Device().Key(), "hang")
		callErr <- err
	}()
	<-started
	idle := newClient(t, f.b.Env()) // never started: its operation waits
	waiting := onWait(idle)
	waitErr := make(chan error, 1)
	go func() { waitErr <- idle.Publish(context.Background(), "com.example.x", 1) }()
	<-waiting
	if err := caller.Stop(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if err := idle.Stop(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	for name, ch := range map[string]chan error{"call": callErr, "waiting publish": waitErr} {
		select {
		case err := <-ch:
			if !errors.Is(err, client.ErrStopped) {
				t.Errorf("%s: err = %v, want ErrStopped", name, err)
			}
		case <-time.After(15 * time.Second):
			t.Errorf("%s did not end at Stop", name)
		}
	}
}

func TestRun(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	c := newClient(t, f.a.Env())
	ran := false
	err := c.Run(ctxT(t), func(ctx context.Context) error {
		ran = c.IsConnected()
		return fmt.Errorf("main says %w", errMain)
	})
	if !errors.Is(err, errMain) || !ran {
		t.Fatalf("Run = %v (connected in main: %v)", err, ran)
	}
	if c.State() != client.StateStopped {
		t.Errorf("state after Run = %s", c.State())
	}
}

var errMain = errors.New("done")

func TestFromServer(t *testing.T) {
	f := newFleet(t)
	env := f.a.Env()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"serialNumber":%q,"deviceKey":%q,"appName":%q,"swarmKey":%s,"appKey":%s,"env":"DEV"}`,
			env["DEVICE_SERIAL_NUMBER"], env["DEVICE_KEY"], env["APP_NAME"], env["SWARM_KEY"], env["APP_KEY"])
	}))
	defer srv.Close()
	c, err := client.FromServer(ctxT(t), srv.URL+"/config.json", append(fast, client.WithURL(f.p.URL()), client.WithCredentials(f.a.Credentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop(context.Background())
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if id := c.Identity(); id.Realm() != f.a.Realm() || id.SerialNumber != env["DEVICE_SERIAL_NUMBER"] {
		t.Errorf("identity = %+v", id)
	}
	bad := httptest.NewServer(http.NotFoundHandler())
	defer bad.Close()
	if _, err := client.FromServer(ctxT(t), bad.URL); err == nil {
		t.Error("FromServer with a 404 succeeded")
	}
}

func TestAuthorizationRefusals(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	swarm := f.a.Device().Project().Key()
	noop := func(context.Context, *client.Event) {}
	refusals := map[string]error{
		"subscribe raw table topic": func() error {
			_, err := c.Subscribe(ctx, fmt.Sprintf("%d.%d.sensors", swarm, f.app.Key()), noop)
			return err
		}(),
		"subscribe bulk topic": func() error {
			_, err := c.Subscribe(ctx, fmt.Sprintf("bulk.%d.%d.sensors", swarm, f.app.Key()), noop)
			return err
		}(),
		"call a wamp meta procedure": func() error { _, err := c.Call(ctx, "wamp.session.list"); return err }(),
		"publish on a service topic": c.Publish(ctx, "transformed.sensors", 1),
		"publish into another swarm": c.Publish(ctx, fmt.Sprintf("%d.1.x", swarm+1), 1),
	}
	for name, err := range refusals {
		if client.WampURI(err) != "wamp.error.not_authorized" {
			t.Errorf("%s: err = %v, want wamp.error.not_authorized", name, err)
		}
	}
	if _, err := c.Call(ctx, "wamp.session.get", 0); client.WampURI(err) == "wamp.error.not_authorized" {
		t.Errorf("wamp.session.get must stay callable (heartbeat of the JavaScript SDK): %v", err)
	}
}

func TestRunStopsOnSIGTERM(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	c := newClient(t, f.a.Env())
	running := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- c.Run(context.Background(), func(ctx context.Context) error {
			close(running)
			<-ctx.Done() // ends with the signal
			return ctx.Err()
		})
	}()
	<-running // Run's signal handler is installed before main runs
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after SIGTERM = %v, want nil", err)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("Run did not return after SIGTERM")
	}
	if c.State() != client.StateStopped {
		t.Errorf("state = %s", c.State())
	}
}
