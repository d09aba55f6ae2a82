// This file holds fault injection and control: dropping, freezing and
// restarting connections and the router, withholding realms, and refusing
// chosen inbound messages of app sessions.

package platformtest

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// DropConnections closes every connection abruptly: no WebSocket close
// frame, no GOODBYE. Clients see their transport fail; the router drops
// their sessions.
func (p *Platform) DropConnections() {
	conns := p.trackedConns(false)
	for _, c := range conns {
		_ = c.hardClose()
	}
	p.log.Info("connections dropped", "count", len(conns))
}

// FreezeConnections makes every existing WebSocket link silently dead: it
// stays open, but nothing is read from it and whatever is written to it is
// discarded. Clients only notice through their keepalive; the router
// notices through its own (see WithServerKeepalive) and then drops the
// session while the socket stays open. New connections work normally.
// Frozen links are closed by DropConnections, Down and Close.
func (p *Platform) FreezeConnections() {
	conns := p.trackedConns(true)
	for _, c := range conns {
		c.frozen.Store(true)
	}
	p.log.Info("connections frozen", "count", len(conns))
}

// Down stops listening, drops every connection and closes the router, as
// when the platform's router goes away. Provisioned state is kept.
func (p *Platform) Down() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.downLocked()
}

// Up starts a new router with the same realms, services and state and
// listens on the same address again. It is a no-op when the platform is
// up and an error when the platform is closed or the address is taken.
func (p *Platform) Up() error {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	return p.upIfDownLocked()
}

// Restart is Down followed by Up.
func (p *Platform) Restart() error {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.downLocked()
	return p.upIfDownLocked()
}

func (p *Platform) upIfDownLocked() error {
	p.mu.Lock()
	closed, up := p.closed, p.gen != nil
	p.mu.Unlock()
	switch {
	case closed:
		return errors.New("platformtest: platform closed")
	case up:
		return nil
	}
	if err := p.upLocked(nil); err != nil {
		return fmt.Errorf("platformtest: %w", err)
	}
	p.log.Info("platform up", "url", p.URL())
	return nil
}

// WithholdRealm takes a realm out of the router until ReleaseRealm: its
// sessions are closed (GOODBYE wamp.close.system_shutdown), its services
// stop, and joins get ABORT wamp.error.no_such_realm. A realm that is not
// provisioned yet stays out when it is created.
func (p *Platform) WithholdRealm(name string) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	p.withheld[name] = true
	p.mu.Unlock()
	p.reconcileLocked()
}

// ReleaseRealm puts a withheld realm back, with its services.
func (p *Platform) ReleaseRealm(name string) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	delete(p.withheld, name)
	p.mu.Unlock()
	p.reconcileLocked()
}

// Action names the kind of inbound message a Refusal applies to.
type Action string

// Actions a Refusal can refuse.
const (
	ActionPublish   Action = "publish"
	ActionSubscribe Action = "subscribe"
	ActionCall      Action = "call"
	ActionRegister  Action = "register"
)

// Refusal describes inbound messages of app sessions the platform answers
// with an ERROR instead of forwarding them to the router.
type Refusal struct {
	Action Action
	URI    string // topic or procedure, exactly as sent; "" matches any
	Error  string // error URI; default wamp.error.not_authorized
	Args   []any  // arguments of the ERROR
	Times  int    // how many messages to refuse; 0 = until cancelled
}

type refusal struct {
	spec Refusal
	left int // -1: until cancelled
}

// Refuse answers the next matching inbound messages of app sessions with
// an ERROR (a PUBLISH only when it asked for acknowledgement) and drops
// them. Refusals are checked in the order they were made. The returned
// function cancels the refusal; calling it more than once is harmless.
func (p *Platform) Refuse(r Refusal) (cancel func()) {
	switch r.Action {
	case ActionPublish, ActionSubscribe, ActionCall, ActionRegister:
	default:
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(fmt.Errorf("refuse: unknown action %q", r.Action))
		return func() {}
	}
	if r.Error == "" {
		r.Error = wire.ErrNotAuthorized
	}
	r.Args = cloneList(r.Args)
	rf := &refusal{spec: r, left: r.Times}
	if r.Times <= 0 {
		rf.left = -1
	}
	p.mu.Lock()
	p.refusals = append(p.refusals, rf)
	p.mu.Unlock()
	return func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.refusals = slices.DeleteFunc(p.refusals, func(x *refusal) bool { return x == rf })
	}
}

// takeRefusal returns the refusal matching a message, using it up once.
func (p *Platform) takeRefusal(kind, uri string) (Refusal, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, rf := range p.refusals {
		if string(rf.spec.Action) != kind || (rf.spec.URI != "" && rf.spec.URI != uri) {
			continue
		}
		if rf.left > 0 {
			rf.left--
			if rf.left == 0 {
				p.refusals = slices.Delete(p.refusals, i, i+1)
			}
		}
		return rf.spec, true
	}
	return Refusal{}, false
}

// refusalError builds the ERROR answering a refused message.
func refusalError(msg wamp.Message, req wamp.ID, r Refusal) *wamp.Error {
	return &wamp.Error{
		Type:      msg.MessageType(),
		Request:   req,
		Details:   wamp.Dict{},
		Error:     wamp.URI(r.Error),
		Arguments: cloneList(r.Args),
	}
}
