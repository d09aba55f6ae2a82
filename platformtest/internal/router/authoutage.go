// This file holds the authenticator outage: a fault during which the
// router refuses valid credentials with wamp.error.authentication_failed,
// as the production router does while its authenticator or its database
// cannot verify a credential.

package router

import "time"

// DenyAuthOutage is the denial reason of a valid credential refused during
// an authenticator outage.
const DenyAuthOutage = "auth_outage"

// authOutage is the state of the fault; guarded by Router.mu.
type authOutage struct {
	on    bool
	until time.Time // platform time it ends at; zero: until EndAuthOutage
}

// StartAuthOutage makes the router refuse every join with
// wamp.error.authentication_failed, valid credentials included, for d of
// platform time (0: until EndAuthOutage). Sessions already joined stay;
// only joins are refused. The authentication log names the refusals of
// valid credentials auth_outage; a wrong credential keeps its own reason.
// Starting an outage while one lasts replaces it.
func (rt *Router) StartAuthOutage(d time.Duration) {
	o := authOutage{on: true}
	if d > 0 {
		o.until = rt.clock.Now().Add(d)
	}
	rt.mu.Lock()
	rt.outage = o
	rt.mu.Unlock()
	rt.log.Info("authenticator outage started", "for", d)
}

// EndAuthOutage ends the outage: valid credentials are admitted again.
func (rt *Router) EndAuthOutage() {
	rt.mu.Lock()
	was := rt.outage.on
	rt.outage = authOutage{}
	rt.mu.Unlock()
	if was {
		rt.log.Info("authenticator outage ended")
	}
}

// AuthOutage reports whether an outage lasts now and, when it has an end,
// the platform time of that end.
func (rt *Router) AuthOutage() (on bool, until time.Time) {
	now := rt.clock.Now()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.outageLocked(now), rt.outage.until
}

// outageLocked reports whether the outage lasts at platform time now;
// rt.mu is held.
func (rt *Router) outageLocked(now time.Time) bool {
	o := rt.outage
	return o.on && (o.until.IsZero() || now.Before(o.until))
}

// inOutage reports whether the outage lasts now.
func (rt *Router) inOutage() bool {
	now := rt.clock.Now()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.outageLocked(now)
}
