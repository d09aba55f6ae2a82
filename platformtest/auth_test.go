package platformtest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestAuthIDRewrittenToSerial joins with the per-app and the legacy
// credential and checks that the router reports the serial as authid, to
// the client and to a callee as caller_authid.
func TestAuthIDRewrittenToSerial(t *testing.T) {
	f := newFixture(t)
	serial := f.d1.Serial()
	callee := worldtest.Connect(t, f.p, f.in2, client.MSGPACK)
	seen := make(chan wamp.Dict, 2)
	proc := wire.DeviceFunction(2, 43, 26, "DEV", "whoami")
	err := callee.Register(proc, func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		seen <- inv.Details
		return client.InvokeResult{Args: wamp.List{"ok"}}
	}, nil) // no disclose_caller: the platform discloses app callers anyway
	if err != nil {
		t.Fatalf("register: %v", err)
	}

	id, secret := f.in1.Credentials()
	for _, tc := range []struct{ name, authid, secret string }{
		{"per-app", id, secret},
		{"legacy", serial, serial},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := worldtest.Dial(t, f.p.URL(), worldtest.DialConfig(f.in1.Realm(), tc.authid, tc.secret, client.JSON))
			if err != nil {
				t.Fatalf("join: %v", err)
			}
			if got := c.RealmDetails()["authid"]; got != serial {
				t.Errorf("WELCOME authid = %v, want %s", got, serial)
			}
			if got := c.RealmDetails()["authrole"]; got != wire.RoleApp {
				t.Errorf("WELCOME authrole = %v, want app", got)
			}
			if _, err := c.Call(worldtest.Ctx(t), proc, nil, nil, nil, nil); err != nil {
				t.Fatalf("call: %v", err)
			}
			d := <-seen
			if d["caller_authid"] != serial || d["caller_authrole"] != wire.RoleApp {
				t.Errorf("callee saw caller_authid %v, caller_authrole %v; want %s, app", d["caller_authid"], d["caller_authrole"], serial)
			}
			var found bool
			for _, s := range f.p.Sessions() {
				if s.ID == uint64(c.ID()) {
					found = true
					want := SessionInfo{ID: s.ID, Realm: f.in1.Realm(), AuthID: serial, AuthIDSent: tc.authid,
						AuthRole: wire.RoleApp, Serial: serial, DeviceKey: 42, AppKey: 26, Stage: Dev, Joined: s.Joined}
					if diff := cmp.Diff(want, s); diff != "" {
						t.Errorf("session info (-want +got):\n%s", diff)
					}
				}
			}
			if !found {
				t.Errorf("session %d not in Sessions()", c.ID())
			}
		})
	}
}

// TestAuthRefusals checks the ABORT reasons and the denial reasons of the
// authentication log.
func TestAuthRefusals(t *testing.T) {
	f := newFixture(t)
	other := f.p.AddApp("other", "", Key(30))
	prodOnly := f.p.AddApp("prodonly", "", Key(31))
	f.p.Install(f.d1, prodOnly, Prod)
	foreign := f.p.Install(f.d2, other, Dev) // dev-1 does not run "other"
	serial := f.d1.Serial()
	id, secret := f.in1.Credentials()
	_, prodSecret := f.p.InstallationOf(42, 31, Prod).Credentials()

	for _, tc := range []struct {
		name, realm, authid, secret string
		abort, reason               string
	}{
		{"wrong secret", f.in1.Realm(), id, "wrong", wire.ErrAuthenticationFailed, router.DenyBadSignature},
		{"legacy wrong secret", f.in1.Realm(), serial, "wrong", wire.ErrAuthenticationFailed, router.DenyBadSignature},
		{"unknown device", f.in1.Realm(), wire.AppAuthID(26, "dev", 1, "nope"), "x", wire.ErrAuthenticationFailed, registry.DenyUnknownDevice},
		{"unknown legacy serial", f.in1.Realm(), "nope", "nope", wire.ErrAuthenticationFailed, registry.DenyUnknownDevice},
		{"upper-case authid is a serial", f.in1.Realm(), "APP-26-dev-e1@" + serial, secret, wire.ErrAuthenticationFailed, registry.DenyUnknownDevice},
		{"stale epoch", f.in1.Realm(), wire.AppAuthID(26, "dev", 5, serial), secret, wire.ErrAuthenticationFailed, registry.DenyStaleEpoch},
		{"not installed", f.in1.Realm(), wire.AppAuthID(30, "dev", 1, serial), "x", wire.ErrAuthenticationFailed, registry.DenyNotInstalled},
		{"installed in the other stage", f.in1.Realm(), wire.AppAuthID(31, "dev", 1, serial), prodSecret, wire.ErrAuthenticationFailed, registry.DenyNotInstalledRealmStage},
		{"legacy on a foreign realm", foreign.Realm(), serial, serial, wire.ErrAuthenticationFailed, registry.DenyLegacyForeign},
		{"per-app on another app's realm", foreign.Realm(), id, secret, wire.ErrAuthenticationFailed, registry.DenyNoGrant},
		{"unknown realm", "realm-9-9-dev", id, secret, wire.ErrNoSuchRealm, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := len(f.p.AuthLog())
			c := worldtest.DialWire(t, f.p, false)
			msg := c.Join(tc.realm, tc.authid, tc.secret)
			if got := worldtest.ErrorURI(msg); got != tc.abort {
				t.Fatalf("join: got %s %v, want ABORT %s", msg.MessageType(), msg, tc.abort)
			}
			log := f.p.AuthLog()[before:]
			if tc.reason == "" {
				if len(log) != 0 {
					t.Errorf("auth log grew by %v, want nothing", log)
				}
				return
			}
			if len(log) != 1 || log[0].Admitted || log[0].Reason != tc.reason || log[0].AuthID != tc.authid || log[0].Realm != tc.realm {
				t.Errorf("auth log = %+v, want one refusal %s for %s on %s", log, tc.reason, tc.authid, tc.realm)
			}
		})
	}
}

// TestAuthLeadingZeros accepts app-026-dev-e01@serial (docs/wire.md §6).
func TestAuthLeadingZeros(t *testing.T) {
	f := newFixture(t)
	_, secret := f.in1.Credentials()
	c := worldtest.DialWire(t, f.p, false)
	w := c.MustJoin(f.in1.Realm(), "app-026-dev-e01@"+f.d1.Serial(), secret)
	if w.Details["authid"] != f.d1.Serial() {
		t.Errorf("authid = %v, want the serial", w.Details["authid"])
	}
}

// TestWithheldRealm: a withheld realm refuses joins with no_such_realm and
// closes its sessions; released, it admits again.
func TestWithheldRealm(t *testing.T) {
	f := newFixture(t)
	c := worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
	f.p.WithholdRealm(f.in1.Realm())
	select {
	case <-c.Done():
	case <-worldtest.Ctx(t).Done():
		t.Fatal("session on a withheld realm stayed open")
	}
	if g := c.RouterGoodbye(); g == nil || g.Reason != wamp.URI(wire.CloseSystemShutdown) {
		t.Errorf("router goodbye = %+v, want %s", g, wire.CloseSystemShutdown)
	}
	id, secret := f.in1.Credentials()
	w := worldtest.DialWire(t, f.p, false)
	if got := worldtest.ErrorURI(w.Join(f.in1.Realm(), id, secret)); got != wire.ErrNoSuchRealm {
		t.Fatalf("join while withheld: %q, want %s", got, wire.ErrNoSuchRealm)
	}
	f.p.ReleaseRealm(f.in1.Realm())
	worldtest.Connect(t, f.p, f.in1, client.MSGPACK)
}

// TestWithholdBeforeInstall keeps a realm out that does not exist yet.
func TestWithholdBeforeInstall(t *testing.T) {
	p := New(t)
	d := p.AddDevice("d")
	a := p.AddApp("a", "")
	p.WithholdRealm(wire.Realm(1, 1, string(Dev)))
	in := p.Install(d, a, Dev)
	id, secret := in.Credentials()
	if got := worldtest.ErrorURI(worldtest.DialWire(t, p, true).Join(in.Realm(), id, secret)); got != wire.ErrNoSuchRealm {
		t.Fatalf("join: %q, want %s", got, wire.ErrNoSuchRealm)
	}
	p.ReleaseRealm(in.Realm())
	worldtest.JoinInstallation(t, p, in, true)
}

// TestRotation: the new epoch works at once, the previous one for 15
// minutes of platform time, then it is stale.
func TestRotation(t *testing.T) {
	f := newFixture(t)
	oldID, oldSecret := f.in1.Credentials()
	newID, newSecret := f.in1.Rotate()
	if want := wire.AppAuthID(26, "dev", 2, f.d1.Serial()); newID != want {
		t.Fatalf("rotated authid = %s, want %s", newID, want)
	}
	if newSecret == oldSecret {
		t.Fatal("rotation kept the secret")
	}
	if env := f.in1.Env(); env[wire.EnvAppAuthID] != newID || env[wire.EnvAppAuthSecret] != newSecret {
		t.Errorf("Env has %s/%s, want the rotated pair", env[wire.EnvAppAuthID], env[wire.EnvAppAuthSecret])
	}
	join := func(id, secret string) string {
		return worldtest.ErrorURI(worldtest.DialWire(t, f.p, false).Join(f.in1.Realm(), id, secret))
	}
	if got := join(newID, newSecret); got != "" {
		t.Errorf("new epoch: %s", got)
	}
	f.p.Clock().Advance(14 * time.Minute)
	if got := join(oldID, oldSecret); got != "" {
		t.Errorf("previous epoch within grace: %s", got)
	}
	f.p.Clock().Advance(2 * time.Minute)
	if got := join(oldID, oldSecret); got != wire.ErrAuthenticationFailed {
		t.Errorf("previous epoch after grace: %q, want %s", got, wire.ErrAuthenticationFailed)
	}
	log := f.p.AuthLog()
	if last := log[len(log)-1]; last.Reason != registry.DenyStaleEpoch {
		t.Errorf("last auth log entry %+v, want stale_epoch", last)
	}
	if got := join(newID, newSecret); got != "" {
		t.Errorf("new epoch after grace: %s", got)
	}
	// A second rotation makes epoch 1 stale at once, epoch 2 the previous.
	f.in1.Rotate()
	if got := join(newID, newSecret); got != "" {
		t.Errorf("epoch 2 after the second rotation: %s", got)
	}
}

// TestUninstallStopsCredentials refuses an uninstalled app's credential.
func TestUninstallStopsCredentials(t *testing.T) {
	f := newFixture(t)
	id, secret := f.in1.Credentials()
	f.p.Uninstall(f.in1)
	if got := worldtest.ErrorURI(worldtest.DialWire(t, f.p, false).Join(f.in1.Realm(), id, secret)); got != wire.ErrAuthenticationFailed {
		t.Fatalf("join after uninstall: %q", got)
	}
	if log := f.p.AuthLog(); log[len(log)-1].Reason != registry.DenyNotInstalled {
		t.Errorf("reason %q, want not_installed", log[len(log)-1].Reason)
	}
}
