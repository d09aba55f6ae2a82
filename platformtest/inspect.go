// This file holds inspection: the sessions the platform admitted, the
// recorded inbound messages of app sessions and the authentication log
// (kept by internal/router). Everything is returned as copies.

package platformtest

import (
	"context"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/router"
)

// SessionInfo describes a joined session.
type SessionInfo struct {
	ID         uint64
	Realm      string
	AuthID     string // the authid the router reports: the device serial
	AuthIDSent string // the authid the client sent in HELLO
	AuthRole   string
	Serial     string
	DeviceKey  int
	AppKey     int // app of the credential
	Stage      Stage
	Joined     time.Time // platform time
}

// Kind names the kind of an inbound message of an app session: what the
// recording holds and what a Fault intercepts.
type Kind string

// Kinds of inbound messages.
const (
	KindPublish   Kind = router.KindPublish
	KindCall      Kind = router.KindCall
	KindSubscribe Kind = router.KindSubscribe
	KindRegister  Kind = router.KindRegister
)

// Message is an inbound message of an app session, as recorded.
type Message struct {
	Kind    Kind
	Realm   string
	URI     string
	Args    []any
	Kwargs  map[string]any
	Options map[string]any
	Session uint64
	AuthID  string // the session's authid: the device serial
	Time    time.Time
}

// AuthAttempt is one entry of the authentication log.
type AuthAttempt struct {
	Time     time.Time // platform time of the decision
	Realm    string
	AuthID   string // as sent in HELLO
	Admitted bool
	Role     string // granted role, when admitted
	Serial   string // serial of the device the authid names, when known
	Session  uint64 // session ID, when admitted
	// Reason is the denial reason, "" when admitted: missing_args,
	// bad_realm, unknown_device, stale_epoch, not_installed,
	// not_installed_realm_stage, unknown_provider, no_grant,
	// legacy_foreign, legacy_denied (WithStrictAuth), bad_signature or
	// no_response.
	Reason string
}

// Sessions returns the joined network sessions, oldest first.
func (p *Platform) Sessions() []SessionInfo {
	in := p.rt.Sessions()
	out := make([]SessionInfo, len(in))
	for i, s := range in {
		out[i] = SessionInfo{ID: s.ID, Realm: s.Realm, AuthID: s.AuthID, AuthIDSent: s.AuthIDSent, AuthRole: s.AuthRole,
			Serial: s.Serial, DeviceKey: s.DeviceKey, AppKey: s.AppKey, Stage: Stage(s.Stage), Joined: s.Joined}
	}
	return out
}

// WaitSessions waits until at least n sessions are joined on realm (any
// realm when realm is ""). It returns ctx.Err() when ctx ends first and an
// error when the platform closes.
func (p *Platform) WaitSessions(ctx context.Context, realm string, n int) error {
	return p.rt.WaitSessions(ctx, realm, n)
}

// Recorded returns every recorded inbound message of app sessions, oldest
// first: publications, calls, subscriptions and registrations as the
// clients sent them (before authorization and faults). Values are
// normalised (int64, float64, string, bool, []byte, []any, map[string]any)
// and copied.
func (p *Platform) Recorded() []Message { return messages(p.rt.Recorded("")) }

// Publications returns the recorded publications.
func (p *Platform) Publications() []Message { return messages(p.rt.Recorded(router.KindPublish)) }

// Calls returns the recorded calls.
func (p *Platform) Calls() []Message { return messages(p.rt.Recorded(router.KindCall)) }

// ClearRecorded forgets the recorded messages.
func (p *Platform) ClearRecorded() { p.rt.ClearRecorded() }

// AuthLog returns the authentication log, oldest first: the newest
// attempts within its bound (DefaultAuthLogLimit, WithAuthLogLimit).
func (p *Platform) AuthLog() []AuthAttempt {
	in := p.rt.AuthLog()
	out := make([]AuthAttempt, len(in))
	for i, a := range in {
		out[i] = AuthAttempt(a)
	}
	return out
}

// messages converts the router's recorded messages.
func messages(in []router.Message) []Message {
	out := make([]Message, len(in))
	for i, m := range in {
		out[i] = Message{Kind: Kind(m.Kind), Realm: m.Realm, URI: m.URI, Args: m.Args, Kwargs: m.Kwargs,
			Options: m.Options, Session: m.Session, AuthID: m.AuthID, Time: m.Time}
	}
	return out
}
