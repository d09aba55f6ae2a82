// This file holds authentication (WIRE.md §1.4): the per-realm WAMP-CRA
// authenticator, the decision which credential a realm admits with which
// role, and the authentication log with the platform's denial reasons.

package platformtest

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Denial reasons of the authentication log (WIRE.md §1.4, plus the two a
// router adds: a wrong signature and a missing answer to the challenge).
const (
	denyMissingArgs            = "missing_args"
	denyBadRealm               = "bad_realm"
	denyUnknownDevice          = "unknown_device"
	denyStaleEpoch             = "stale_epoch"
	denyNotInstalled           = "not_installed"
	denyNotInstalledRealmStage = "not_installed_realm_stage"
	denyUnknownProvider        = "unknown_provider"
	denyNoGrant                = "no_grant"
	denyLegacyForeign          = "legacy_foreign"
	denyBadSignature           = "bad_signature"
	denyNoResponse             = "no_response"
)

// authProvider is the authprovider the platform reports in WELCOME.
const authProvider = "ironflock"

// authResponseTimeout bounds the wait for AUTHENTICATE after CHALLENGE.
const authResponseTimeout = 10 * time.Second

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
	// legacy_foreign, bad_signature or no_response.
	Reason string
}

// verdict is what a realm makes of an authid before the challenge.
type verdict struct {
	reason string // "" = admissible with secret
	secret string
	role   string
	device *Device
	app    *App // app of the credential (legacy: the realm's app)
	stage  Stage
}

// craAuthenticator is the WAMP-CRA authenticator of one realm.
type craAuthenticator struct {
	p     *Platform
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
	v := a.p.judge(a.realm, authid)
	if v.reason == denyMissingArgs {
		a.p.logAuth(a.realm, authid, v, 0)
		return nil, errAuthFailed
	}
	key := v.secret
	role := v.role
	if v.reason != "" {
		key, role = randomHex(16), wire.RoleApp
	}
	challenge := challengeString(sid, authid, role, a.p.clock.Now())
	select {
	case client.Send() <- &wamp.Challenge{AuthMethod: wire.AuthMethodWAMPCRA, Extra: wamp.Dict{"challenge": challenge}}:
	default:
		return nil, errors.New("cannot send challenge: outbound queue full")
	}
	msg, err := wamp.RecvTimeout(client, authResponseTimeout)
	if err != nil {
		v.reason = denyNoResponse
		a.p.logAuth(a.realm, authid, v, 0)
		return nil, err
	}
	rsp, ok := msg.(*wamp.Authenticate)
	if !ok {
		v.reason = denyNoResponse
		a.p.logAuth(a.realm, authid, v, 0)
		return nil, errors.New("expected AUTHENTICATE, got " + msg.MessageType().String())
	}
	if v.reason == "" && !crsign.VerifySignature(rsp.Signature, challenge, []byte(key)) {
		v.reason = denyBadSignature
	}
	if v.reason != "" {
		a.p.logAuth(a.realm, authid, v, 0)
		return nil, errAuthFailed
	}
	a.p.admit(sid, a.realm, authid, v, wp)
	return &wamp.Welcome{Details: wamp.Dict{
		"authid":       v.device.serial, // every session's authid is the device serial
		"authrole":     v.role,
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

// judge decides what realm ri makes of authid.
func (p *Platform) judge(ri realm.Info, authid string) verdict {
	p.mu.Lock()
	defer p.mu.Unlock()
	if authid == "" {
		return verdict{reason: denyMissingArgs}
	}
	if p.st.realms[ri.Name] == nil {
		return verdict{reason: denyBadRealm}
	}
	if app, stage, epoch, serial, ok := wire.ParseAppAuthID(authid); ok {
		return p.judgeAppLocked(ri, app, Stage(strings.ToUpper(stage)), epoch, serial)
	}
	return p.judgeLegacyLocked(ri, authid)
}

// judgeAppLocked judges a per-app credential: role app on the app's own
// realm; role app_reader on the realm of a provider the app holds a grant
// for (the cross-app hook).
func (p *Platform) judgeAppLocked(ri realm.Info, app int, stage Stage, epoch int, serial string) verdict {
	d := p.deviceBySerialLocked(serial)
	if d == nil {
		return verdict{reason: denyUnknownDevice}
	}
	v := verdict{device: d, stage: stage, role: wire.RoleApp}
	in := p.st.installs[instKey{d.key, app, stage}]
	if in == nil {
		other := Prod
		if stage == Prod {
			other = Dev
		}
		if p.st.installs[instKey{d.key, app, other}] != nil {
			v.reason = denyNotInstalledRealmStage
		} else {
			v.reason = denyNotInstalled
		}
		return v
	}
	v.app = in.app
	if !in.epochValidLocked(epoch, p.clock.Now()) {
		v.reason = denyStaleEpoch
		return v
	}
	_, v.secret = in.credentialLocked(epoch)
	if ri.Name == in.realm {
		return v
	}
	switch provider := p.st.apps[ri.App]; {
	case ri.Swarm != d.project.key, ri.App == app:
		// another project, or the app's own realm of the other stage
		v.reason = denyBadRealm
	case provider == nil:
		v.reason = denyUnknownProvider
	case !p.grantedLocked(app, provider.name):
		v.reason = denyNoGrant
	default:
		v.role = wire.RoleAppReader
	}
	return v
}

// judgeLegacyLocked judges the legacy credential (serial, serial): role
// app on the realm of an app installed on that device in that stage.
func (p *Platform) judgeLegacyLocked(ri realm.Info, serial string) verdict {
	d := p.deviceBySerialLocked(serial)
	if d == nil {
		return verdict{reason: denyUnknownDevice}
	}
	v := verdict{device: d, stage: Stage(ri.Stage), role: wire.RoleApp, secret: serial}
	in := p.st.installs[instKey{d.key, ri.App, Stage(ri.Stage)}]
	if ri.Swarm != d.project.key || in == nil {
		v.reason = denyLegacyForeign
		return v
	}
	v.app = in.app
	return v
}

// grantedLocked reports whether consumer app may read provider's data.
func (p *Platform) grantedLocked(consumer int, provider string) bool {
	g := p.st.grants[consumer]
	return g[strings.ToLower(provider)] || g["*"]
}

// admit records an admitted session.
func (p *Platform) admit(sid wamp.ID, ri realm.Info, authid string, v verdict, wp *wsPeer) {
	s := &session{
		id:         uint64(sid),
		realm:      ri,
		authID:     v.device.serial,
		authIDSent: authid,
		role:       v.role,
		device:     v.device,
		app:        v.app,
		stage:      v.stage,
		peer:       wp,
	}
	p.mu.Lock()
	p.sessions[s.id] = s
	p.mu.Unlock()
	if wp != nil {
		wp.setSession(s)
	}
	p.logAuth(ri, authid, v, s.id)
}

// logAuth appends to the authentication log.
func (p *Platform) logAuth(ri realm.Info, authid string, v verdict, sid uint64) {
	at := AuthAttempt{
		Time:     p.clock.Now(),
		Realm:    ri.Name,
		AuthID:   authid,
		Admitted: v.reason == "",
		Reason:   v.reason,
		Session:  sid,
	}
	if v.device != nil {
		at.Serial = v.device.serial
	}
	if at.Admitted {
		at.Role = v.role
		p.log.Debug("session admitted", "realm", ri.Name, "authid", authid, "role", v.role, "session", sid)
	} else {
		p.log.Info("authentication refused", "realm", ri.Name, "authid", authid, "reason", v.reason)
	}
	p.mu.Lock()
	p.authLog = append(p.authLog, at)
	p.mu.Unlock()
}
