// This file holds the join: HELLO with the roles the engine implements, the
// WAMP-CRA challenge and response, and WELCOME or ABORT.

package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/internal/wire"
)

// helloRoles announces the roles and features the client implements.
var helloRoles = wamp.Dict{
	"publisher": wamp.Dict{"features": wamp.Dict{
		"publisher_exclusion":           true,
		"publisher_identification":      true,
		"subscriber_blackwhite_listing": true,
	}},
	"subscriber": wamp.Dict{"features": wamp.Dict{
		"pattern_based_subscription": true,
		"publisher_identification":   true,
	}},
	"caller": wamp.Dict{"features": wamp.Dict{
		"call_canceling":           true,
		"call_timeout":             true,
		"caller_identification":    true,
		"progressive_call_results": true,
	}},
	"callee": wamp.Dict{"features": wamp.Dict{
		"call_canceling":             true,
		"call_timeout":               true,
		"caller_identification":      true,
		"progressive_call_results":   true,
		"pattern_based_registration": true,
	}},
}

// join runs HELLO → CHALLENGE → AUTHENTICATE → WELCOME on a fresh link. A
// refusal comes back as an *Error carrying the ABORT reason.
func join(ctx context.Context, l *link, realm, authID, secret string, timeout time.Duration) (uint64, error) {
	stop := context.AfterFunc(ctx, func() { l.close(ctx.Err()) })
	defer stop()
	hello := &wamp.Hello{Realm: wamp.URI(realm), Details: wamp.Dict{
		"authid":      authID,
		"authmethods": wamp.List{wire.AuthMethodWAMPCRA},
		"roles":       helloRoles,
		"agent":       "ironflock-go",
	}}
	if err := l.write(hello); err != nil {
		return 0, joinErr(ctx, l, err)
	}
	for step := 0; step < 3; step++ {
		msg, err := l.read(time.Now().Add(timeout))
		if err != nil {
			return 0, joinErr(ctx, l, err)
		}
		switch m := msg.(type) {
		case *wamp.Challenge:
			if m.AuthMethod != wire.AuthMethodWAMPCRA {
				return 0, fmt.Errorf("join %s: the router asked for authmethod %q", realm, m.AuthMethod)
			}
			sig := crsign.RespondChallenge(secret, m, nil)
			if err := l.write(&wamp.Authenticate{Signature: sig, Extra: wamp.Dict{}}); err != nil {
				return 0, joinErr(ctx, l, err)
			}
		case *wamp.Welcome:
			_ = l.conn.SetReadDeadline(time.Time{})
			return uint64(m.ID), nil
		case *wamp.Abort:
			we := &Error{URI: string(m.Reason)}
			if text, ok := m.Details["message"].(string); ok && text != "" {
				we.Args = []any{text}
			}
			return 0, we
		default:
			return 0, fmt.Errorf("join %s: unexpected %s", realm, msg.MessageType())
		}
	}
	return 0, fmt.Errorf("join %s: no WELCOME after authentication", realm)
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
