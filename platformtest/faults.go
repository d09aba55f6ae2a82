// This file holds fault injection in Go: dropping, freezing and restarting
// connections and the router, withholding realms, authenticator outages,
// and interceptions of single inbound messages of app sessions
// (kfake-style: fail, drop, delay, hang until released, or watch; one-shot
// or kept) with the use the platform names itself, Refuse; the router
// (internal/router) carries them out. RefuseWrites, a full storage, is the
// data backend's own (fleetdb).

package platformtest

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/router"
)

// DropConnections closes every connection abruptly: no WebSocket close
// frame, no GOODBYE. Clients see their transport fail; the router drops
// their sessions.
func (p *Platform) DropConnections() { p.rt.DropConnections() }

// FreezeConnections makes every existing WebSocket link silently dead: it
// stays open, but nothing is read from it and whatever is written to it is
// discarded. Clients only notice through their keepalive; the router
// notices through its own (see WithServerKeepalive) and then drops the
// session while the socket stays open. New connections work normally.
// Frozen links are closed by DropConnections, Down and Close.
func (p *Platform) FreezeConnections() { p.rt.FreezeConnections() }

// Down stops listening, drops every connection and closes the router, as
// when the platform's router goes away. Provisioned state is kept.
func (p *Platform) Down() { p.rt.Down() }

// Up starts a new router with the same realms, services and state and
// listens on the same address again. It is a no-op when the platform is
// up and an error when the platform is closed or the address is taken.
func (p *Platform) Up() error { return p.rt.Up() }

// Restart is Down followed by Up.
func (p *Platform) Restart() error { return p.rt.Restart() }

// WithholdRealm takes a realm out of the router until ReleaseRealm: its
// sessions are closed (GOODBYE wamp.close.system_shutdown), its services
// stop, and joins get ABORT wamp.error.no_such_realm. A realm that is not
// provisioned yet stays out when it is created.
func (p *Platform) WithholdRealm(name string) { p.rt.WithholdRealm(name) }

// ReleaseRealm puts a withheld realm back, with its services.
func (p *Platform) ReleaseRealm(name string) { p.rt.ReleaseRealm(name) }

// AuthOutage starts an authenticator outage: for d of platform time (0:
// until the returned function is called) every join is refused with ABORT
// wamp.error.authentication_failed, valid credentials included, as the
// production router does while its authenticator or its database cannot
// verify a credential. Joined sessions stay; combine it with
// DropConnections or Restart to make clients join again. The
// authentication log gives the refusals of valid credentials the reason
// auth_outage. The returned function ends the outage at once; calling it
// more than once, or after the outage ended, is harmless (it ends a later
// outage too). A new outage replaces one that lasts.
func (p *Platform) AuthOutage(d time.Duration) (end func()) {
	p.rt.StartAuthOutage(d)
	return p.rt.EndAuthOutage
}

// Fault describes an interception of inbound messages of app sessions:
// which messages it matches and what happens to them. Without Fail, Drop,
// Delay or Hang it only watches them (Interception.Seen, Wait). A
// PUBLISH that did not ask for an acknowledgement is never answered.
type Fault struct {
	Kind   Kind   // KindPublish, KindCall, KindSubscribe or KindRegister; "" = any
	Realm  string // "" = any realm
	URI    string // topic or procedure exactly as sent; "" = any
	Prefix bool   // URI matches every topic or procedure it is a prefix of
	Times  int    // how many messages it takes; 0 = until cancelled

	Fail  string        // answer an ERROR with this URI instead of forwarding
	Args  []any         // arguments of that ERROR
	Drop  bool          // swallow: an acknowledged PUBLISH gets PUBLISHED, other kinds no answer
	Delay time.Duration // forward (or fail) each message this much platform time later
	Hang  bool          // hold each message until Release or Cancel
}

// Interception is an installed Fault.
type Interception struct{ i *router.Interception }

// Intercept installs a fault. Interceptions are checked in the order they
// were made, after a message is recorded and before authorization: those
// that only watch see the message and pass it on, the first that acts
// takes it. A delayed or held message goes on
// later, possibly after messages the client sent behind it, as calls on a
// real router do.
func (p *Platform) Intercept(f Fault) *Interception {
	switch f.Kind {
	case "", KindPublish, KindCall, KindSubscribe, KindRegister:
	default:
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(fmt.Errorf("intercept: unknown kind %q", f.Kind)) // does not return
	}
	return &Interception{i: p.rt.Intercept(router.Fault{
		Kind: string(f.Kind), Realm: f.Realm, URI: f.URI, Prefix: f.Prefix, Times: f.Times,
		Fail: f.Fail, Args: f.Args, Drop: f.Drop, Delay: f.Delay, Hang: f.Hang,
	})}
}

// Cancel ends the interception: it takes no more messages and the messages
// it holds go on. Calling it more than once is harmless.
func (in *Interception) Cancel() { in.i.Cancel() }

// Release lets the messages held so far go on; messages that match later
// are held again.
func (in *Interception) Release() { in.i.Release() }

// Seen returns copies of the messages the interception took, oldest first.
func (in *Interception) Seen() []Message { return messages(in.i.Seen()) }

// Wait returns once the interception has taken n messages, or ctx.Err().
func (in *Interception) Wait(ctx context.Context, n int) error { return in.i.Wait(ctx, n) }

// Refusal describes inbound messages of app sessions the platform answers
// with an ERROR instead of forwarding them to the router.
type Refusal struct {
	Kind  Kind   // the kind of message refused
	URI   string // topic or procedure, exactly as sent; "" matches any
	Error string // error URI; default wamp.error.not_authorized
	Args  []any  // arguments of the ERROR
	Times int    // how many messages to refuse; 0 = until cancelled
}

// Refuse answers the next matching inbound messages of app sessions with
// an ERROR (a PUBLISH only when it asked for acknowledgement) and drops
// them: an interception with Fail set. The returned function cancels the
// refusal; calling it more than once is harmless.
func (p *Platform) Refuse(r Refusal) (cancel func()) {
	if r.Kind == "" {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(fmt.Errorf("refuse: no kind of message")) // does not return
	}
	if r.Error == "" {
		r.Error = wire.ErrNotAuthorized
	}
	return p.Intercept(Fault{Kind: r.Kind, URI: r.URI, Fail: r.Error, Args: r.Args, Times: r.Times}).Cancel
}

// WriteRefusal is how the data backend of a realm answers writes; see
// Platform.RefuseWrites.
type WriteRefusal int

const (
	// AcceptWrites stores writes: the normal state.
	AcceptWrites WriteRefusal = iota
	// StorageFull refuses appends with sys.dataservice.error.storage_full
	// (the disk is nearly full) and drops publications.
	StorageFull
	// StorageOverusage refuses appends with
	// sys.dataservice.error.storage_overusage (the account's allowance is
	// used up) and drops publications.
	StorageOverusage
)

// String returns the refusal's name.
func (r WriteRefusal) String() string {
	switch r {
	case AcceptWrites:
		return "AcceptWrites"
	case StorageFull:
		return "StorageFull"
	case StorageOverusage:
		return "StorageOverusage"
	}
	return fmt.Sprintf("WriteRefusal(%d)", int(r))
}

// RefuseWrites switches how the data backend of realm answers appends and
// publications to every declared table, error-logs included: StorageFull
// and StorageOverusage refuse appends (append.<S>.<A>.<t>, appendBulk.…)
// with their error URI and drop publications (<S>.<A>.<t>, bulk.…), as
// the platform's data backend does when its storage is full or the
// account's allowance is used up, and report each refusal on
// databackend.errors.<t> as it reports every refused write; AcceptWrites
// stores them again. InsertRows is never refused. An unknown realm fails
// the test (a platform made by Start panics), as provisioning mistakes do.
func (p *Platform) RefuseWrites(realm string, r WriteRefusal) {
	if p.tb != nil {
		p.tb.Helper()
	}
	if _, _, err := p.realmDataTemplate(realm); err != nil {
		p.fail(fmt.Errorf("refuse writes: %w", err))
		return
	}
	var uri, reason string
	switch r {
	case StorageFull:
		uri, reason = wire.ErrStorageFull, "storage is full: writes are refused until space is freed"
	case StorageOverusage:
		uri, reason = wire.ErrStorageOverusage, "the account's storage allowance is used up"
	}
	p.fleet.RefuseWrites(realm, uri, reason)
}
