// This file tests the accessor of the live session and that Stop cancels
// the context Run gives its main function.

package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestSessionInfo(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	c := newClient(t, f.a.Env(), st.option())
	if info, ok := c.Session(); ok || info.ID != 0 || info.Details != nil {
		t.Fatalf("before Start: %+v, %v", info, ok)
	}
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	info, ok := c.Session()
	sessions := f.p.Sessions()
	if !ok || len(sessions) != 1 {
		t.Fatalf("after Start: %+v, %v; router sessions %+v", info, ok, sessions)
	}
	if info.ID != sessions[0].ID || info.Realm != f.a.Realm() || info.AuthID != f.a.Device().Serial() || info.AuthRole != "app" || info.AuthMethod != "wampcra" {
		t.Errorf("session = %+v, router has %+v", info, sessions[0])
	}
	if info.Details["authid"] != info.AuthID || info.Details["roles"] == nil {
		t.Errorf("WELCOME details = %v", info.Details)
	}
	info.Details["authid"] = "changed" // a copy: the next call is unaffected
	if again, _ := c.Session(); again.Details["authid"] != f.a.Device().Serial() {
		t.Errorf("Details is not a copy: %v", again.Details)
	}
	// A new session after a reconnect.
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	if next, ok := c.Session(); !ok || next.ID == info.ID {
		t.Errorf("after the reconnect: %+v, %v (the old session was %d)", next, ok, info.ID)
	}
	if err := c.Stop(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	if info, ok := c.Session(); ok || info.ID != 0 {
		t.Errorf("after Stop: %+v, %v", info, ok)
	}
}

func TestStopCancelsRunMain(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	c := newClient(t, f.a.Env())
	running := make(chan struct{})
	cause := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		done <- c.Run(context.Background(), func(ctx context.Context) error {
			close(running)
			<-ctx.Done() // the running task ends with Stop
			cause <- context.Cause(ctx)
			return ctx.Err()
		})
	}()
	<-running
	if err := c.Stop(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run after Stop = %v, want nil", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return after Stop: main's context was not canceled")
	}
	if err := <-cause; !errors.Is(err, client.ErrStopped) {
		t.Errorf("context.Cause = %v, want ErrStopped", err)
	}
}
