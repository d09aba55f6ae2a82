// This file holds the faults of the connections and the router: dropping,
// freezing and restarting connections and the router, and withholding
// realms. Faults of single messages are interceptions (intercept.go).

package router

import (
	"errors"
	"fmt"
	"maps"
	"slices"
)

// DropConnections closes every connection abruptly: no WebSocket close
// frame, no GOODBYE. Clients see their transport fail; the router drops
// their sessions.
func (rt *Router) DropConnections() {
	conns := rt.trackedConns(false)
	for _, c := range conns {
		_ = c.hardClose()
	}
	rt.log.Info("connections dropped", "count", len(conns))
}

// FreezeConnections makes every existing WebSocket link silently dead: it
// stays open, but nothing is read from it and whatever is written to it is
// discarded. Clients only notice through their keepalive; the router
// notices through its own (see WithServerKeepalive) and then drops the
// session while the socket stays open. New connections work normally.
// Frozen links are closed by DropConnections, Down and Close.
func (rt *Router) FreezeConnections() {
	conns := rt.trackedConns(true)
	for _, c := range conns {
		c.frozen.Store(true)
	}
	rt.log.Info("connections frozen", "count", len(conns))
}

// Down stops listening, drops every connection and closes the router, as
// when the platform's router goes away. Provisioned state is kept.
func (rt *Router) Down() {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.downLocked()
}

// Up starts a new router with the same realms, services and state and
// listens on the same address again. It is a no-op when the platform is
// up and an error when the platform is closed or the address is taken.
func (rt *Router) Up() error {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	return rt.upIfDownLocked()
}

// Restart is Down followed by Up.
func (rt *Router) Restart() error {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.downLocked()
	return rt.upIfDownLocked()
}

func (rt *Router) upIfDownLocked() error {
	rt.mu.Lock()
	closed, up := rt.closed, rt.gen != nil
	rt.mu.Unlock()
	switch {
	case closed:
		return errors.New("platformtest: platform closed")
	case up:
		return nil
	}
	if err := rt.upLocked(nil); err != nil {
		return fmt.Errorf("platformtest: %w", err)
	}
	rt.log.Info("platform up", "addr", rt.addr)
	return nil
}

// WithholdRealm takes a realm out of the router until ReleaseRealm: its
// sessions are closed (GOODBYE wamp.close.system_shutdown), its services
// stop, and joins get ABORT wamp.error.no_such_realm. A realm that is not
// provisioned yet stays out when it is created.
func (rt *Router) WithholdRealm(name string) {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.mu.Lock()
	rt.withheld[name] = true
	rt.mu.Unlock()
	rt.reconcileLocked()
}

// ReleaseRealm puts a withheld realm back, with its services.
func (rt *Router) ReleaseRealm(name string) {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.mu.Lock()
	delete(rt.withheld, name)
	rt.mu.Unlock()
	rt.reconcileLocked()
}

// Withheld returns the names of the withheld realms, sorted.
func (rt *Router) Withheld() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Sorted(maps.Keys(rt.withheld))
}
