// This file tests a handle losing its access after it was opened: a
// revoked grant (NO_GRANT) and refusals that persist while the grant
// stands (NOT_AUTHORIZED).

package crossapp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/internal/leakcheck"
)

// TestRevokeWhileSubscribed: the platform ends the reader's session when
// the grant is revoked and refuses its rejoin; the handle asks why, tells
// OnError NO_GRANT, ends its subscription and answers NO_GRANT from then
// on, and Connect no longer opens the provider.
func TestRevokeWhileSubscribed(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn)
	ctx := ctxT(t)
	lost := newErrorsSeen()
	w, err := apps.Connect(ctx, "weather", lost.option())
	if err != nil {
		t.Fatal(err)
	}
	seen := make(rows, 4)
	sub, err := w.SubscribeToTable(ctx, "readings", seen.handler)
	if err != nil {
		t.Fatal(err)
	}
	station := start(t, f.station.Env())
	if _, err := station.AppendToTable(ctx, "readings", reading(0, 20)); err != nil {
		t.Fatal(err)
	}
	seen.next(t)

	f.p.Revoke(f.pr, f.dash, "weather")
	err = lost.next(t)
	wantCode(t, "OnError after the revocation", err, crossapp.CodeNoGrant)
	var ae *crossapp.AccessError
	if !errors.As(err, &ae) || ae.App != "weather" {
		t.Errorf("OnError got %#v", err)
	}
	<-w.Done()
	wantCode(t, "Err after the revocation", w.Err(), crossapp.CodeNoGrant)
	<-sub.Done()
	_, err = w.GetHistory(ctx, "readings", nil)
	wantCode(t, "GetHistory after the revocation", err, crossapp.CodeNoGrant)
	_, err = w.SubscribeToTable(ctx, "readings", seen.handler)
	wantCode(t, "SubscribeToTable after the revocation", err, crossapp.CodeNoGrant)
	_, err = apps.Connect(ctx, "weather")
	wantCode(t, "Connect after the revocation", err, crossapp.CodeNoGrant)

	wantRefused(t, f.p, f.station.Realm(), "no_grant")
	if err := w.Close(ctx); err != nil {
		t.Errorf("Close after the revocation: %v", err)
	}
	select {
	case err := <-lost:
		t.Errorf("OnError called again: %v", err)
	default:
	}

	// A new grant opens the provider again, with a new handle.
	f.p.Grant(f.pr, f.dash, "weather")
	again, err := apps.Connect(ctx, "weather")
	if err != nil || again == w {
		t.Fatalf("Connect after a new grant: %p, %v", again, err)
	}
}

// TestPersistentRefusal: a connected handle whose rejoins are refused
// while the grant still stands — here its credential went stale after two
// rotations, while the consumer's own session lives on — ends with
// NOT_AUTHORIZED once the refusals persist.
func TestPersistentRefusal(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	_, apps := consumer(t, f.dashIn, crossapp.WithPersistentDenial(3, time.Nanosecond))
	ctx := ctxT(t)
	lost := newErrorsSeen()
	w, err := apps.Connect(ctx, "weather", lost.option())
	if err != nil {
		t.Fatal(err)
	}
	f.dashIn.Rotate()
	f.dashIn.Rotate() // the client's credential (epoch 1) is now stale
	f.p.WithholdRealm(f.station.Realm())
	f.p.ReleaseRealm(f.station.Realm())

	err = lost.next(t)
	wantCode(t, "OnError after persistent refusals", err, crossapp.CodeNotAuthorized)
	if client.WampURI(err) != "wamp.error.authentication_failed" {
		t.Errorf("the platform's refusal is lost: %v", err)
	}
	wantCode(t, "Err", w.Err(), crossapp.CodeNotAuthorized)
	_, err = w.GetHistory(ctx, "readings", nil)
	wantCode(t, "GetHistory after persistent refusals", err, crossapp.CodeNotAuthorized)
	stale := 0
	for _, reason := range refusals(f.p, f.station.Realm()) {
		if reason == "stale_epoch" {
			stale++
		}
	}
	if stale < 3 {
		t.Errorf("%d stale_epoch refusals, want at least 3", stale)
	}
}

// TestOnErrorMayStop: OnError may stop the client, without a deadline,
// as a program that cannot work without the provider would.
func TestOnErrorMayStop(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	c, apps := consumer(t, f.dashIn)
	stopped := make(chan error, 1)
	w, err := apps.Connect(ctxT(t), "weather", crossapp.OnError(func(error) { stopped <- c.Stop(context.Background()) }))
	if err != nil {
		t.Fatal(err)
	}
	f.p.Revoke(f.pr, f.dash, "weather")
	select {
	case err := <-stopped:
		if err != nil {
			t.Errorf("Stop from OnError: %v", err)
		}
	case <-ctxT(t).Done():
		t.Fatal("Stop from OnError did not return")
	}
	wantCode(t, "Err", w.Err(), crossapp.CodeNoGrant)
}
