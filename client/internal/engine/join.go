// This file holds the join: HELLO with the roles the engine implements and
// the authentication methods offered, the answer to the router's
// CHALLENGE (WAMP-CRA or ticket), and WELCOME or ABORT.

package engine

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Authentication methods the engine can offer.
const (
	AuthWAMPCRA   = wire.AuthMethodWAMPCRA
	AuthTicket    = "ticket"
	AuthAnonymous = "anonymous"
)

// AuthMethod is one authentication method offered in HELLO.
type AuthMethod struct {
	// Name is AuthWAMPCRA, AuthTicket or AuthAnonymous.
	Name string
	// Secret is the WAMP-CRA secret or the ticket; unused for anonymous.
	Secret string
}

// helloRoles announces the roles and features the client implements.
var helloRoles = map[string]any{
	"publisher": map[string]any{"features": map[string]any{
		"publisher_exclusion":           true,
		"publisher_identification":      true,
		"subscriber_blackwhite_listing": true,
	}},
	"subscriber": map[string]any{"features": map[string]any{
		"pattern_based_subscription": true,
		"publisher_identification":   true,
	}},
	"caller": map[string]any{"features": map[string]any{
		"call_canceling":           true,
		"call_timeout":             true,
		"caller_identification":    true,
		"progressive_call_results": true,
	}},
	"callee": map[string]any{"features": map[string]any{
		"call_canceling":             true,
		"call_timeout":               true,
		"caller_identification":      true,
		"progressive_call_results":   true,
		"pattern_based_registration": true,
	}},
}

// welcome is what the router's WELCOME told about the session. The
// details are kept encoded (msgpack) and decoded when asked for: the
// router's roles and features take about 2.9 KiB as maps, 0.5 KiB encoded,
// for every session, of which nothing but Session.Details reads them.
type welcome struct {
	id      uint64
	details []byte
}

// newWelcome keeps m's ID and details.
func newWelcome(m *welcomeMsg) welcome {
	b, err := appendDict(nil, m.Details, 0)
	if err != nil { // a decoded dict is always in the wire form
		return welcome{id: m.ID}
	}
	// At its size: the encoding grew by doubling, to about 1.5 times it.
	return welcome{id: m.ID, details: bytes.Clone(b)}
}

// detailsDict returns the details, decoded anew: a map of the caller's own.
func (w welcome) detailsDict() map[string]any {
	if len(w.details) == 0 {
		return map[string]any{}
	}
	p := parser{b: w.details}
	d, _ := p.value(0).(map[string]any)
	if d == nil {
		d = map[string]any{}
	}
	return d
}

// hello builds the HELLO offering methods, in order, as authID (omitted
// when empty).
func hello(realm, authID string, methods []AuthMethod) *helloMsg {
	names := make([]any, len(methods))
	for i, m := range methods {
		names[i] = m.Name
	}
	details := map[string]any{"authmethods": names, "roles": helloRoles, "agent": "ironflock-go"}
	if authID != "" {
		details["authid"] = authID
	}
	return &helloMsg{Realm: realm, Details: details}
}

// join runs HELLO → [CHALLENGE → AUTHENTICATE] → WELCOME on a fresh link.
// A refusal comes back as an *Error carrying the ABORT reason, or, for an
// ABORT whose reason is not a URI, an error quoting what the router sent.
func join(ctx context.Context, l *link, realm, authID string, methods []AuthMethod, timeout time.Duration) (welcome, error) {
	stop := context.AfterFunc(ctx, func() { l.close(ctx.Err()) })
	defer stop()
	if err := l.write(hello(realm, authID, methods)); err != nil {
		return welcome{}, joinErr(ctx, l, err)
	}
	for step := 0; step < 3; step++ {
		msg, err := l.read(time.Now().Add(timeout))
		if err != nil {
			return welcome{}, joinErr(ctx, l, err)
		}
		switch m := msg.(type) {
		case *challengeMsg:
			auth, err := answer(m, methods)
			if err != nil {
				return welcome{}, fmt.Errorf("join %s: %w", realm, err)
			}
			if err := l.write(auth); err != nil {
				return welcome{}, joinErr(ctx, l, err)
			}
		case *welcomeMsg:
			l.setDeadline(time.Time{})
			l.joinDone()
			return newWelcome(m), nil
		case abort:
			return welcome{}, m.joinError(realm)
		default:
			return welcome{}, fmt.Errorf("join %s: unexpected %s", realm, msg.kind())
		}
	}
	return welcome{}, fmt.Errorf("join %s: no WELCOME after authentication", realm)
}

// answer answers a CHALLENGE with the method the router picked, which must
// be one the client offered.
func answer(m *challengeMsg, methods []AuthMethod) (*authenticateMsg, error) {
	for _, am := range methods {
		if am.Name != m.AuthMethod {
			continue
		}
		switch am.Name {
		case AuthWAMPCRA:
			sig, err := craSignature(am.Secret, m.Extra)
			if err != nil {
				return nil, err
			}
			return &authenticateMsg{Signature: sig, Extra: map[string]any{}}, nil
		case AuthTicket:
			return &authenticateMsg{Signature: am.Secret, Extra: map[string]any{}}, nil
		}
	}
	return nil, fmt.Errorf("the router challenged with authmethod %q, which the client did not offer or cannot answer", m.AuthMethod)
}

// joinErr prefers the reason the link ended for over the error of the step.
func joinErr(ctx context.Context, l *link, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if r := l.reason(); r != nil {
		return r
	}
	return err
}
