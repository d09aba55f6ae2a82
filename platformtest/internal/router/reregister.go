// This file holds the screening of inbound messages of admitted sessions
// (recording, interceptions) and the emulation of force_reregister (docs/wire.md
// §7.9), which nexus lacks: a REGISTER with force_reregister: true for a
// procedure another session holds revokes the earlier registration first.
// The owner gets UNREGISTERED with request 0 and details.registration, as
// from the real router. A client whose link died silently relies on it to
// re-register while the router still holds its old session.

package router

import (
	"context"
	"slices"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// reregisterTimeout bounds the registration lookups of one takeover.
const reregisterTimeout = 5 * time.Second

// screenInbound records msg, which arrived in frame, and applies
// interceptions and force_reregister, and serves the calls of services
// itself (direct.go). It returns false when msg does not go on to the
// router now: the platform answered it, dropped it, or holds it.
func (rt *Router) screenInbound(w *wsPeer, s *session, msg wamp.Message, frame []byte) bool {
	if c, ok := msg.(*wamp.Cancel); ok {
		return !w.cancelDirect(c) // direct.go
	}
	m, ok := rt.record(s, msg, frame, w.json)
	if !ok {
		return true
	}
	rt.tapIn(w, s, &m, msg)
	forward := func() bool {
		switch m := msg.(type) {
		case *wamp.Register:
			rt.forceReregister(w, s, m)
		case *wamp.Subscribe:
			w.noteDemand(s, m) // demand.go
		case *wamp.Call:
			return !rt.serveDirect(w, s, m) // direct.go
		}
		return true
	}
	if i := rt.take(&m); i != nil {
		return i.apply(w, msg, forward)
	}
	return forward()
}

// forceReregister revokes the registrations other sessions hold on the
// procedure of reg when reg asks for force_reregister and would be
// authorized. reg itself is forwarded afterwards by the caller. An owner
// that is already leaving (its link closing) can no longer be told to
// unregister: the takeover waits until nexus has removed it, as the real
// router hands the procedure over whatever state the earlier session is in.
func (rt *Router) forceReregister(w *wsPeer, s *session, reg *wamp.Register) {
	if force, _ := reg.Options[wire.OptForceReregister].(bool); !force {
		return
	}
	if s.role != wire.RoleApp || !appMay(s.realm, s.device.Key, reg) {
		return // refused by the router anyway; never revoke for it
	}
	rr := rt.runtimeOf(w, s.realm.Name)
	if rr == nil || rr.host.Session == nil {
		return
	}
	h := rr.host
	ctx, cancel := context.WithTimeout(context.Background(), reregisterTimeout)
	defer cancel()
	match, _ := wamp.AsString(reg.Options[wire.OptMatch])
	res, err := h.Session.Call(ctx, string(wamp.MetaProcRegLookup), nil,
		wamp.List{reg.Procedure, wamp.Dict{wire.OptMatch: match}}, nil, nil)
	if err != nil || len(res.Arguments) == 0 {
		return
	}
	regID, ok := wamp.AsID(res.Arguments[0])
	if !ok {
		return // not registered
	}
	callees, ok := registrationCallees(ctx, h, regID)
	if !ok {
		return
	}
	for _, sid := range callees {
		if sid == s.id || sid == uint64(h.Session.ID()) {
			continue // the platform's own session keeps its procedures
		}
		owner := rt.sessionByID(sid)
		if owner != nil && owner.peer != nil && rt.revoke(owner.peer, regID) {
			rt.log.Info("registration taken over", "procedure", string(reg.Procedure),
				"registration", uint64(regID), "from", owner.id, "to", s.id)
			continue
		}
		// Leaving: wait until nexus no longer lists it.
		if rt.onTakeoverWait != nil {
			rt.onTakeoverWait(sid)
		}
		err := rr.leaves.awaitGone(ctx, sid, func(ctx context.Context) bool {
			now, ok := registrationCallees(ctx, h, regID)
			return ok && slices.Contains(now, sid)
		})
		if err != nil {
			rt.log.Warn("takeover: the earlier owner did not leave in time", "procedure", string(reg.Procedure),
				"session", sid, "err", err)
		}
	}
}

// runtimeOf returns what runs for realm name in the generation of w's
// link; nil when the realm is not in it.
func (rt *Router) runtimeOf(w *wsPeer, name string) *realmRuntime {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if w.gen == nil {
		return nil
	}
	return w.gen.realms[name]
}

// registrationCallees returns the sessions registered under regID; false
// when the registration is gone or the lookup failed.
func registrationCallees(ctx context.Context, h *realm.Host, regID wamp.ID) ([]uint64, bool) {
	res, err := h.Session.Call(ctx, string(wamp.MetaProcRegListCallees), nil, wamp.List{regID}, nil, nil)
	if err != nil || len(res.Arguments) == 0 {
		return nil, false
	}
	list, _ := wamp.AsList(res.Arguments[0])
	ids := make([]uint64, 0, len(list))
	for _, c := range list {
		if sid, ok := wamp.AsID(c); ok {
			ids = append(ids, uint64(sid))
		}
	}
	return ids, true
}

// revoke unregisters regID on behalf of owner and tells owner, as the
// router of the real platform does on a takeover.
func (rt *Router) revoke(owner *wsPeer, regID wamp.ID) bool {
	unreg, barrier := owner.nextInjectID(), owner.nextInjectID()
	owner.expectSwallow(unreg, barrier)
	if !owner.sendIn(&wamp.Unregister{Request: unreg, Registration: regID}) {
		return false
	}
	// The router handles one session's messages in order and finishes an
	// UNREGISTER before it takes the next message: once it has taken this
	// harmless UNSUBSCRIBE (answered no_such_subscription, swallowed), the
	// procedure is free.
	if !owner.sendIn(&wamp.Unsubscribe{Request: barrier}) {
		return false
	}
	owner.enqueue(&revokedRegistration{Details: wamp.Dict{"registration": regID}})
	return true
}

// revokedRegistration is the router-initiated UNREGISTERED:
// [UNREGISTERED, 0, {"registration": id}]. nexus's wamp.Unregistered has
// no Details, so it cannot carry the registration.
type revokedRegistration struct {
	Request wamp.ID
	Details wamp.Dict
}

// MessageType returns UNREGISTERED.
func (*revokedRegistration) MessageType() wamp.MessageType { return wamp.UNREGISTERED }
