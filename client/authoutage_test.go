package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
)

// refusals returns an attempt handler option and a channel that receives
// every attempt refused with wamp.error.authentication_failed.
func refusals() (client.Option, <-chan error) {
	ch := make(chan error, 1024)
	return client.WithAttemptHandler(func(err error) {
		if client.WampURI(err) == wire.ErrAuthenticationFailed {
			select {
			case ch <- err:
			default:
			}
		}
	}), ch
}

// awaitRefusals waits for n refused attempts.
func awaitRefusals(t *testing.T, ch <-chan error, n int) {
	t.Helper()
	ctx := ctxT(t)
	for i := range n {
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("%d of %d refused attempts came", i, n)
		}
	}
}

// TestAuthOutageRiddenOut: while the router refuses valid credentials
// (the production router's authenticator outage) the client keeps
// retrying at its default cadence and says so (StateRefusedRetrying);
// once the outage ends it is connected again within 5 s, its subscription
// and registration restored.
func TestAuthOutageRiddenOut(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	st := newStates()
	refused, refusedCh := refusals()
	defaults := client.WithReconnectBackoff(client.DefaultReconnectInitial, client.DefaultReconnectMax)
	c := connect(t, f.a, st.option(), refused, defaults)
	pst := newStates()
	peer := connect(t, f.b, pst.option())
	tr := setupTraffic(t, c)

	end := f.p.AuthOutage(0)
	defer end()
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateRefusedRetrying, 10*time.Second)
	awaitRefusals(t, refusedCh, 3) // it keeps retrying through the outage
	if c.State() != client.StateRefusedRetrying {
		t.Errorf("state during the outage: %s", c.State())
	}
	outage := 0
	for _, a := range f.p.AuthLog() {
		if !a.Admitted && a.Reason == "auth_outage" && a.Serial == f.a.Device().Serial() {
			outage++
		}
	}
	if outage < 3 {
		t.Errorf("%d refusals named auth_outage in the authentication log, want at least 3", outage)
	}

	end()
	ended := time.Now()
	st.await(t, client.StateConnected, 10*time.Second)
	if took := time.Since(ended); took > 5*time.Second {
		t.Errorf("connected again %v after the outage ended, want within 5 s", took)
	}
	pst.await(t, client.StateConnected, 10*time.Second)
	tr.check(t, peer, f.a.Device().Key())
}

// TestAuthRefusalFinalAfterGrace: a wrong secret is retried through the
// grace, then the refusal is final: Start returns ErrCredentialRefused
// carrying the router's URI, the state is StateRefused and operations
// fail with the same error.
func TestAuthRefusalFinalAfterGrace(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	env := f.a.Env()
	env["APP_AUTH_SECRET"] = "wrong"
	refused, refusedCh := refusals()
	c := newClient(t, env, refused, client.WithAuthFailureGrace(300*time.Millisecond))
	err := c.Start(ctxT(t))
	if !errors.Is(err, client.ErrCredentialRefused) || client.WampURI(err) != wire.ErrAuthenticationFailed {
		t.Fatalf("Start = %v, want ErrCredentialRefused with %s", err, wire.ErrAuthenticationFailed)
	}
	awaitRefusals(t, refusedCh, 2) // retried through the grace first
	if c.State() != client.StateRefused {
		t.Errorf("state = %s, want refused", c.State())
	}
	if err := c.Publish(ctxT(t), "com.example.refused", 1); !errors.Is(err, client.ErrCredentialRefused) {
		t.Errorf("Publish after a final refusal = %v, want ErrCredentialRefused", err)
	}
	bad := 0
	for _, a := range f.p.AuthLog() {
		if !a.Admitted && a.Reason == "bad_signature" {
			bad++
		}
	}
	if bad < 2 {
		t.Errorf("%d refusals named bad_signature, want at least 2", bad)
	}
}

// TestAuthOutageOutlastingGrace: an outage longer than the grace ends a
// running client's Run with ErrCredentialRefused; a client joins again
// once the outage is over.
func TestAuthOutageOutlastingGrace(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	st := newStates()
	c := newClient(t, f.a.Env(), st.option(), client.WithAuthFailureGrace(200*time.Millisecond))
	started := make(chan struct{})
	ran := make(chan error, 1)
	go func() {
		ran <- c.Run(context.Background(), func(ctx context.Context) error {
			close(started)
			<-ctx.Done()
			return ctx.Err()
		})
	}()
	select {
	case <-started:
	case <-ctxT(t).Done():
		t.Fatal("Run did not start main")
	}
	end := f.p.AuthOutage(0)
	defer end()
	f.p.DropConnections()
	st.await(t, client.StateRefusedRetrying, 10*time.Second)
	st.await(t, client.StateRefused, 10*time.Second)
	select {
	case err := <-ran:
		if !errors.Is(err, client.ErrCredentialRefused) || client.WampURI(err) != wire.ErrAuthenticationFailed {
			t.Fatalf("Run = %v, want ErrCredentialRefused with %s", err, wire.ErrAuthenticationFailed)
		}
	case <-ctxT(t).Done():
		t.Fatal("Run did not return after the final refusal")
	}

	// A new client after the outage joins as before.
	end()
	again := connect(t, f.a)
	if !again.IsConnected() {
		t.Error("not connected after the outage")
	}
}
