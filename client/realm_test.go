// This file tests ForRealm (a second client of the same app on another
// realm, stopped with the first) and WithAttemptHandler.

package client_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
)

// attempts records what an attempt handler is told.
type attempts struct {
	mu   sync.Mutex
	seen []error
	ch   chan error
}

func newAttempts() *attempts { return &attempts{ch: make(chan error, 1024)} }

func (a *attempts) option() client.Option {
	return client.WithAttemptHandler(func(err error) {
		a.mu.Lock()
		a.seen = append(a.seen, err)
		a.mu.Unlock()
		a.ch <- err
	})
}

// next returns the next outcome reported.
func (a *attempts) next(t *testing.T) error {
	t.Helper()
	select {
	case err := <-a.ch:
		return err
	case <-ctxT(t).Done():
		t.Fatal("no attempt reported")
		return nil
	}
}

// TestAttemptHandler: every attempt's outcome is reported in order —
// the refusals of a missing realm, then nil for the session that follows,
// and nil again after a reconnect.
func TestAttemptHandler(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	f.p.WithholdRealm(f.a.Realm())
	seen := newAttempts()
	c := newClient(t, f.a.Env(), seen.option())
	started := make(chan error, 1)
	go func() { started <- c.Start(ctxT(t)) }()
	if err := seen.next(t); client.WampURI(err) != wire.ErrNoSuchRealm {
		t.Fatalf("first attempt: %v", err)
	}
	f.p.ReleaseRealm(f.a.Realm())
	for {
		err := seen.next(t)
		if err == nil {
			break
		}
		if client.WampURI(err) != wire.ErrNoSuchRealm {
			t.Fatalf("attempt: %v", err)
		}
	}
	if err := <-started; err != nil {
		t.Fatal(err)
	}
	f.p.DropConnections()
	if err := seen.next(t); err != nil {
		t.Fatalf("reconnect: %v", err)
	}
}

// TestForRealm: the second client acts as the first — identity,
// credential, options — on its own session and realm, keeps none of the
// first's handlers, and stops with it.
func TestForRealm(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	parentStates := newStates()
	c := connect(t, f.a, parentStates.option(), client.WithAttemptHandler(func(err error) {
		if err != nil {
			t.Errorf("the parent's attempt handler got the child's %v", err)
		}
	}))
	childStates := newStates()
	other := wire.Realm(f.a.Device().Project().Key(), 999, "dev") // provisioned nowhere
	child, err := c.ForRealm(other, client.WithAttemptHandler(func(error) {}), client.WithStateHandler(func(client.State) {}))
	if err != nil {
		t.Fatal(err)
	}
	if child.Realm() != other || child.Identity() != c.Identity() || child.URL() != c.URL() {
		t.Errorf("child realm %s identity %+v url %s", child.Realm(), child.Identity(), child.URL())
	}
	// The child waits through no_such_realm like any client; the parent's
	// handlers see none of it.
	short, cancel := context.WithTimeout(ctxT(t), 200*time.Millisecond)
	defer cancel()
	if err := child.Start(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Start on a missing realm: %v", err)
	}

	// A second client on the app's own realm: its own session, the same
	// per-app credential.
	same, err := c.ForRealm(c.Realm(), childStates.option())
	if err != nil {
		t.Fatal(err)
	}
	if err := same.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	childStates.await(t, client.StateConnected, 10*time.Second)
	ps, _ := c.Session()
	cs, ok := same.Session()
	if !ok || cs.ID == ps.ID || cs.Realm != c.Realm() {
		t.Fatalf("sessions %+v and %+v", ps, cs)
	}
	authID, _ := f.a.Credentials()
	for _, s := range f.p.Sessions() {
		if s.ID == cs.ID && s.AuthIDSent != authID {
			t.Errorf("the child sent authid %q, want the per-app %q", s.AuthIDSent, authID)
		}
	}

	ctx, cancelStop := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancelStop()
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, ch := range []*client.Client{child, same} {
		if ch.State() != client.StateStopped {
			t.Errorf("%s: state %s after the parent stopped", ch.Realm(), ch.State())
		}
	}
	parentStates.mu.Lock()
	seen := parentStates.seen
	parentStates.mu.Unlock()
	if diff := cmp.Diff([]client.State{client.StateConnecting, client.StateConnected, client.StateStopped}, seen); diff != "" {
		t.Errorf("the parent's states (-want +got):\n%s", diff)
	}
	if _, err := c.ForRealm(other); !errors.Is(err, client.ErrStopped) {
		t.Errorf("ForRealm after Stop: %v", err)
	}
}

// TestForRealmRefusesBadArguments: a blank realm or an invalid option.
func TestForRealmRefusesBadArguments(t *testing.T) {
	f := newFleet(t)
	c := newClient(t, f.a.Env())
	for _, tc := range []struct {
		realm string
		opts  []client.Option
	}{{" ", nil}, {"", nil}, {"realm-1-1-dev", []client.Option{client.WithSessionWait(-time.Second)}}} {
		if _, err := c.ForRealm(tc.realm, tc.opts...); !errors.Is(err, client.ErrInvalidArgument) {
			t.Errorf("ForRealm(%q): %v", tc.realm, err)
		}
	}
}
