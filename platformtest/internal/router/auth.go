// This file holds authentication (docs/wire.md §6): the per-realm WAMP-CRA
// authenticator, the decision which credential a realm admits with which
// role, and the authentication log with the platform's denial reasons.

package router

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Denial reasons the router adds to the platform's (registry.Deny*): a
// wrong signature and a missing answer to the challenge.
const (
	DenyBadSignature = "bad_signature"
	DenyNoResponse   = "no_response"
)

// authProvider is the authprovider the platform reports in WELCOME.
const authProvider = "ironflock"

// errAuthFailed is what a refused client reads in the ABORT message; the
// reason is only in the authentication log, as on the real platform.
var errAuthFailed = errors.New("authentication failed")

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
	// legacy_foreign, bad_signature, no_response or auth_outage.
	Reason string
}

// craAuthenticator is the WAMP-CRA authenticator of one realm.
type craAuthenticator struct {
	rt    *Router
	realm realm.Info
}

// AuthMethod returns "wampcra".
func (a *craAuthenticator) AuthMethod() string { return wire.AuthMethodWAMPCRA }

// Authenticate challenges the client and admits it when the signature
// matches a credential this realm accepts. Unknown authids are challenged
// too and fail afterwards, so a client cannot probe which devices exist.
func (a *craAuthenticator) Authenticate(sid wamp.ID, details wamp.Dict, client wamp.Peer) (*wamp.Welcome, error) {
	wp, _ := client.(*wsPeer)
	if wp != nil {
		wp.releaseJoin() // the realm is safe from here on
	}
	authid, _ := wamp.AsString(details["authid"])
	var v registry.Verdict
	a.rt.reg.View(func(s *registry.State) { v = s.Judge(a.realm, authid) }) // shared: joins run side by side
	if v.Reason == registry.DenyMissingArgs {
		a.rt.logAuth(a.realm, authid, v, 0)
		return nil, errAuthFailed
	}
	key := v.Secret
	role := v.Role
	if v.Reason != "" {
		key, role = registry.RandomHex(16), wire.RoleApp
	}
	challenge := challengeString(sid, authid, role, a.rt.clock.Now())
	select {
	case client.Send() <- &wamp.Challenge{AuthMethod: wire.AuthMethodWAMPCRA, Extra: wamp.Dict{"challenge": challenge}}:
	default:
		return nil, errors.New("cannot send challenge: outbound queue full")
	}
	msg, err := wamp.RecvTimeout(client, a.rt.limits.AuthResponseTimeout)
	if err != nil {
		v.Reason = DenyNoResponse
		a.rt.logAuth(a.realm, authid, v, 0)
		return nil, err
	}
	rsp, ok := msg.(*wamp.Authenticate)
	if !ok {
		v.Reason = DenyNoResponse
		a.rt.logAuth(a.realm, authid, v, 0)
		return nil, errors.New("expected AUTHENTICATE, got " + msg.MessageType().String())
	}
	if v.Reason == "" && !crsign.VerifySignature(rsp.Signature, challenge, []byte(key)) {
		v.Reason = DenyBadSignature
	}
	if v.Reason == "" && a.rt.inOutage() {
		v.Reason = DenyAuthOutage
	}
	if v.Reason != "" {
		a.rt.logAuth(a.realm, authid, v, 0)
		return nil, errAuthFailed
	}
	a.rt.admit(sid, a.realm, authid, v, wp)
	return &wamp.Welcome{Details: wamp.Dict{
		"authid":       v.Device.Serial, // every session's authid is the device serial
		"authrole":     v.Role,
		"authprovider": authProvider,
	}}, nil
}

// challengeString returns the standard WAMP-CRA challenge (a JSON object).
func challengeString(sid wamp.ID, authid, role string, now time.Time) string {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	b, _ := json.Marshal(struct {
		Nonce        string `json:"nonce"`
		AuthProvider string `json:"authprovider"`
		AuthID       string `json:"authid"`
		Timestamp    string `json:"timestamp"`
		AuthRole     string `json:"authrole"`
		AuthMethod   string `json:"authmethod"`
		Session      uint64 `json:"session"`
	}{
		Nonce:        base64.StdEncoding.EncodeToString(nonce),
		AuthProvider: authProvider,
		AuthID:       authid,
		Timestamp:    now.UTC().Format("2006-01-02T15:04:05.000Z"),
		AuthRole:     role,
		AuthMethod:   wire.AuthMethodWAMPCRA,
		Session:      uint64(sid),
	})
	return string(b)
}

// admit records an admitted session.
func (rt *Router) admit(sid wamp.ID, ri realm.Info, authid string, v registry.Verdict, wp *wsPeer) {
	s := &session{
		id:         uint64(sid),
		realm:      ri,
		authID:     v.Device.Serial,
		authIDSent: authid,
		role:       v.Role,
		device:     v.Device,
		app:        v.App,
		stage:      v.Stage,
		peer:       wp,
	}
	rt.mu.Lock()
	rt.sessions[s.id] = s
	rt.byID.Store(s.id, s)
	rt.mu.Unlock()
	if wp != nil {
		wp.setSession(s)
		wp.tc.authenticated(rt)
	}
	rt.logAuth(ri, authid, v, s.id)
}

// logAuth appends to the authentication log.
func (rt *Router) logAuth(ri realm.Info, authid string, v registry.Verdict, sid uint64) {
	at := AuthAttempt{
		Time:     rt.clock.Now(),
		Realm:    ri.Name,
		AuthID:   authid,
		Admitted: v.Reason == "",
		Reason:   v.Reason,
		Session:  sid,
	}
	if v.Device != nil {
		at.Serial = v.Device.Serial
	}
	if at.Admitted {
		at.Role = v.Role
		rt.log.Debug("session admitted", "realm", ri.Name, "authid", authid, "role", v.Role, "session", sid)
	} else {
		rt.log.Info("authentication refused", "realm", ri.Name, "authid", authid, "reason", v.Reason)
	}
	rt.mu.Lock()
	rt.authLog.add(at)
	rt.mu.Unlock()
}
