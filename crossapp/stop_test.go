// This file tests the ends of handles: all of them when the client stops,
// and what a consumer that tries to write on a provider's realm gets.

package crossapp_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// TestStopClosesHandles: Stop closes every handle with its subscriptions
// and connection, leaves no goroutine behind, and Connect then fails.
func TestStopClosesHandles(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.all, platformtest.Wildcard)
	c := start(t, f.allIn.Env())
	apps := crossapp.New(c)
	ctx := ctxT(t)
	handles, err := apps.ConnectAll(ctx)
	if err != nil || len(handles) != 2 {
		t.Fatalf("ConnectAll: %v, %v", handles, err)
	}
	var subs []*client.TableSubscription
	for _, h := range handles {
		sub, err := h.SubscribeToTable(ctx, h.Tables()[0].Name, func(context.Context, *client.TableEvent) {})
		if err != nil {
			t.Fatal(err)
		}
		subs = append(subs, sub)
	}
	if err := c.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	for _, h := range handles {
		<-h.Done()
		if !errors.Is(h.Err(), crossapp.ErrClosed) {
			t.Errorf("%s: Err %v", h.App(), h.Err())
		}
		if _, err := h.GetHistory(ctx, h.Tables()[0].Name, nil); !errors.Is(err, crossapp.ErrClosed) {
			t.Errorf("%s: read after Stop: %v", h.App(), err)
		}
	}
	for _, sub := range subs {
		<-sub.Done()
	}
	if _, err := apps.Connect(ctx, "weather"); !errors.Is(err, client.ErrStopped) {
		t.Errorf("Connect after Stop: %v", err)
	}
}

// TestConsumerCannotWrite: the provider's realm is read-only for a
// consumer, whatever it tries with its credential there: publishing,
// writing rows, revealing secrets or discovering apps.
func TestConsumerCannotWrite(t *testing.T) {
	leakcheck.Check(t)
	f := newProject(t)
	f.p.Grant(f.pr, f.dash, "weather")
	c := start(t, f.dashIn.Env())
	r, err := c.ForRealm(f.station.Realm())
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if s, _ := r.Session(); s.AuthRole != wire.RoleAppReader {
		t.Fatalf("role %q", s.AuthRole)
	}
	notAuthorized := &client.WampError{URI: wire.ErrNotAuthorized}
	row := reading(0, 99)
	for what, try := range map[string]func() error{
		"publish a row": func() error { return r.Publish(ctx, wire.TableTopic(2, 77, "readings"), row) },
		"append a row": func() error {
			_, err := r.Call(ctx, wire.AppendProc(2, 77, "readings"), row)
			return err
		},
		"reveal secrets": func() error {
			_, err := r.CallData(ctx, wire.RevealProc("readings"), map[string]any{"limit": 1})
			return err
		},
		"discover apps": func() error { _, err := r.Call(ctx, wire.AppAccessList); return err },
	} {
		if err := try(); !errors.Is(err, notAuthorized) {
			t.Errorf("%s: %v", what, err)
		}
	}
	if rows := f.p.TableRows(f.station.Realm(), "readings"); len(rows) != 0 {
		t.Errorf("rows stored: %v", rows)
	}
	// Stopping the consumer ends the second client with it.
	stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Stop(stopCtx); err != nil {
		t.Fatal(err)
	}
	if r.State() != client.StateStopped {
		t.Errorf("state %s after the consumer stopped", r.State())
	}
}
