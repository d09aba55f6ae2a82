// This file tests the join with the legacy credential (serial, serial) of
// agents that predate per-app credentials: admitted by the platform's
// default mode, refused by its strict mode.

package client_test

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/platformtest"
)

func TestLegacyCredentialJoin(t *testing.T) {
	f := newFleet(t)
	c := newClient(t, f.a.LegacyEnv()) // no APP_AUTH_ID / APP_AUTH_SECRET
	if err := c.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	serial := f.a.Device().Serial()
	log := f.p.AuthLog()
	if len(log) != 1 || log[0].AuthID != serial || !log[0].Admitted || log[0].Role != "app" {
		t.Fatalf("auth log = %+v, want one admission of the serial as app", log)
	}
	if info, ok := c.Session(); !ok || info.AuthID != serial || info.Realm != f.a.Realm() {
		t.Errorf("session = %+v, %v", info, ok)
	}
	if err := c.Publish(ctxT(t), "com.example.legacy", 1); err != nil {
		t.Fatal(err)
	}
}

func TestLegacyCredentialRefusedInStrictMode(t *testing.T) {
	p := platformtest.New(t, platformtest.WithStrictAuth())
	inst := p.Install(p.AddDevice("device-a"), p.AddApp("interop", ""), platformtest.Dev)
	logs := &logCapture{}
	c := newClient(t, inst.LegacyEnv(), client.WithLogger(slog.New(logs)))
	// Logged once the attempt's error is kept for Start to report.
	err := startUntilLogged(t, c, logs, "connection attempt failed", 1)
	if err == nil || !strings.Contains(err.Error(), "wamp.error.authentication_failed") || !logs.has("the router refused the credential") {
		t.Fatalf("Start = %v, want an authentication refusal", err)
	}
	for _, a := range p.AuthLog() {
		if a.Admitted || a.Reason != "legacy_denied" {
			t.Errorf("auth attempt %+v, want refused as legacy_denied", a)
		}
	}
	// The per-app credential still joins.
	if err := newClient(t, inst.Env()).Start(ctxT(t)); err != nil {
		t.Fatalf("per-app credential in strict mode: %v", err)
	}
}
