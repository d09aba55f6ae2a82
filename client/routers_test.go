// This file tests what apps talking to other WAMP routers use, against the
// fake: a realm option, a choice of authentication, procedures registered
// by full URI, and publications without the device metadata.

package client_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func TestRealmAndAuthOptions(t *testing.T) {
	f := tableFleet(t)
	env := f.a.Env()
	delete(env, "SWARM_KEY") // the realm is given: Start needs no keys
	delete(env, "APP_KEY")
	delete(env, "APP_AUTH_ID")
	delete(env, "APP_AUTH_SECRET")
	authID, secret := f.a.Credentials()
	// Several methods in one HELLO: the router picks the one it speaks.
	c := connect(t, f.a, client.WithEnv(env), client.WithRealm(f.a.Realm()),
		client.WithAuth(client.Ticket(authID, "not-a-ticket"), client.WAMPCRA(authID, secret), client.Anonymous()))
	info, ok := c.Session()
	if !ok || info.Realm != f.a.Realm() || c.Realm() != f.a.Realm() || info.AuthMethod != "wampcra" {
		t.Fatalf("session = %+v, %v", info, ok)
	}
	ctx := ctxT(t)
	if err := c.Publish(ctx, "com.example.other", 1); err != nil {
		t.Fatal(err)
	}
	// The table operations still name the app's tables by its keys.
	if _, err := c.AppendToTable(ctx, "sensordata", sensorRow{Tsp: t0}); !errors.Is(err, client.ErrMissingConfig) {
		t.Errorf("append without APP_KEY: %v, want ErrMissingConfig", err)
	}
	if n := len(f.p.AuthLog()); n != 1 || !f.p.AuthLog()[0].Admitted {
		t.Errorf("auth log = %+v", f.p.AuthLog())
	}
}

func TestRealmOptionNamesAMissingRealm(t *testing.T) {
	f := newFleet(t)
	logs := &logCapture{}
	c := newClient(t, f.a.Env(), client.WithRealm("realm-elsewhere"), client.WithLogger(slog.New(logs)))
	err := startUntilLogged(t, c, logs, "connection attempt failed", 1)
	var oe *client.OpError
	if !errors.As(err, &oe) || oe.URI != "realm-elsewhere" || !strings.Contains(err.Error(), "wamp.error.no_such_realm") {
		t.Fatalf("Start = %v, want an error naming the realm and the refusal", err)
	}
}

func TestRegisterProcedure(t *testing.T) {
	f := newFleet(t)
	st := newStates()
	callee := connect(t, f.a, st.option())
	pst := newStates()
	caller := connect(t, f.b, pst.option())
	ctx := ctxT(t)
	// The platform lets a device register only its own functions, so the
	// full URI here is one; other routers take any URI.
	uri := fmt.Sprintf("%d.%d.%d.DEV.tools.add", f.a.Device().Project().Key(), f.a.Device().Key(), f.app.Key())
	reg, err := callee.RegisterProcedure(ctx, uri, func(_ context.Context, inv *client.Invocation) (any, error) {
		a, _ := client.Decode[int](inv.Args[0])
		b, _ := client.Decode[int](inv.Args[1])
		return a + b, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if reg.Procedure() != uri || reg.Name() != uri {
		t.Errorf("registration = %q (%q)", reg.Procedure(), reg.Name())
	}
	var opts map[string]any
	for _, m := range f.p.Recorded() {
		if m.Kind == platformtest.KindRegister && m.URI == uri {
			opts = m.Options
		}
	}
	if len(opts) != 0 {
		t.Errorf("REGISTER options = %v, want none", opts)
	}
	call := func() {
		t.Helper()
		res, err := caller.Call(ctx, uri, 2, 3)
		if err != nil || res.Args[0] != int64(5) {
			t.Fatalf("call = %v, %v", res, err)
		}
	}
	call()
	// Restored after a reconnect, like a device function.
	f.p.DropConnections()
	st.await(t, client.StateReconnecting, 10*time.Second)
	st.await(t, client.StateConnected, 10*time.Second)
	// The caller lost its link too: a call before it noticed would go out
	// on the dead link and end with ErrOutcomeUnknown.
	pst.awaitReconnect(t)
	call()
	if _, err := callee.RegisterProcedure(ctx, "a..b", nil); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("bad URI: %v", err)
	}
}

func TestPublishWithoutMetadata(t *testing.T) {
	f := newFleet(t)
	c := connect(t, f.a)
	ctx := ctxT(t)
	if err := c.Publish(ctx, "com.example.plain", 1, client.NoMetadata()); err != nil {
		t.Fatal(err)
	}
	if err := c.Publish(ctx, "com.example.plain", client.Kwargs{"k": "v"}, client.NoMetadata()); err != nil {
		t.Fatal(err)
	}
	pubs := f.p.Publications()
	if len(pubs) != 2 {
		t.Fatalf("publications = %+v", pubs)
	}
	if diff := cmp.Diff([]any{int64(1)}, pubs[0].Args); diff != "" || pubs[0].Kwargs != nil {
		t.Errorf("first: args (-want +got):\n%s kwargs %v", diff, pubs[0].Kwargs)
	}
	if diff := cmp.Diff(map[string]any{"k": "v"}, pubs[1].Kwargs); diff != "" || pubs[1].Args == nil {
		t.Errorf("second: kwargs (-want +got):\n%s args %#v", diff, pubs[1].Args)
	}
	if _, err := c.Call(ctx, "com.example.p", client.NoMetadata()); !errors.Is(err, client.ErrInvalidArgument) {
		t.Errorf("NoMetadata in a call: %v", err)
	}
}
