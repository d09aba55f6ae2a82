package platformtest

import (
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestAuthOutage: while an authenticator outage lasts, valid credentials
// are refused with authentication_failed (reason auth_outage), a wrong
// secret keeps its own reason, joined sessions stay; the outage ends with
// its platform time or with the function AuthOutage returns.
func TestAuthOutage(t *testing.T) {
	f := newFixture(t)
	joined := worldtest.Connect(t, f.p, f.in2, client.MSGPACK)
	id, secret := f.in1.Credentials()
	join := func(secret string) (uri, reason string) {
		t.Helper()
		uri = worldtest.ErrorURI(worldtest.DialWire(t, f.p, false).Join(f.in1.Realm(), id, secret))
		log := f.p.AuthLog()
		return uri, log[len(log)-1].Reason
	}

	f.p.AuthOutage(time.Hour) // ends with its platform time
	if uri, reason := join(secret); uri != wire.ErrAuthenticationFailed || reason != router.DenyAuthOutage {
		t.Errorf("valid credential during the outage: %q (%s), want %s (%s)", uri, reason, wire.ErrAuthenticationFailed, router.DenyAuthOutage)
	}
	if uri, reason := join("wrong"); uri != wire.ErrAuthenticationFailed || reason != router.DenyBadSignature {
		t.Errorf("wrong secret during the outage: %q (%s), want %s (%s)", uri, reason, wire.ErrAuthenticationFailed, router.DenyBadSignature)
	}
	if !joined.Connected() {
		t.Error("a joined session was closed by the outage")
	}
	f.p.Clock().Advance(time.Hour) // the outage's platform time is over
	if uri, _ := join(secret); uri != "" {
		t.Errorf("valid credential after the outage's hour: %q", uri)
	}

	end := f.p.AuthOutage(0) // until ended
	if uri, _ := join(secret); uri != wire.ErrAuthenticationFailed {
		t.Errorf("valid credential during an open-ended outage: %q", uri)
	}
	end()
	end() // harmless
	if uri, _ := join(secret); uri != "" {
		t.Errorf("valid credential after the outage ended: %q", uri)
	}
	if uri, reason := join("wrong"); uri != wire.ErrAuthenticationFailed || reason != router.DenyBadSignature {
		t.Errorf("wrong secret after the outage: %q (%s)", uri, reason)
	}
}
