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
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// reregisterTimeout bounds the registration lookups of one takeover.
const reregisterTimeout = 5 * time.Second

// screenInbound records msg, which arrived in frame, and applies
// interceptions and force_reregister. It returns false when msg does not go on to the router
// now: the platform answered it, dropped it, or holds it.
func (rt *Router) screenInbound(w *wsPeer, s *session, msg wamp.Message, frame []byte) bool {
	m, ok := rt.record(s, msg, frame, w.json)
	if !ok {
		return true
	}
	rt.tapIn(w, s, &m, msg)
	forward := func() bool {
		if reg, ok := msg.(*wamp.Register); ok {
			rt.forceReregister(w, s, reg)
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
// authorized. reg itself is forwarded afterwards by the caller.
func (rt *Router) forceReregister(w *wsPeer, s *session, reg *wamp.Register) {
	if force, _ := reg.Options[wire.OptForceReregister].(bool); !force {
		return
	}
	if s.role != wire.RoleApp || !appMay(s.realm, s.device.Key, reg) {
		return // refused by the router anyway; never revoke for it
	}
	rt.mu.Lock()
	var h *realm.Host
	if w.gen != nil && w.gen.realms[s.realm.Name] != nil {
		h = w.gen.realms[s.realm.Name].host
	}
	rt.mu.Unlock()
	if h == nil || h.Session == nil {
		return
	}
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
	res, err = h.Session.Call(ctx, string(wamp.MetaProcRegListCallees), nil, wamp.List{regID}, nil, nil)
	if err != nil || len(res.Arguments) == 0 {
		return
	}
	callees, _ := wamp.AsList(res.Arguments[0])
	for _, c := range callees {
		sid, _ := wamp.AsID(c)
		if uint64(sid) == s.id {
			continue
		}
		owner := rt.sessionByID(uint64(sid))
		if owner == nil || owner.peer == nil {
			continue // the platform's own session keeps its procedures
		}
		if rt.revoke(owner.peer, regID) {
			rt.log.Info("registration taken over", "procedure", string(reg.Procedure),
				"registration", uint64(regID), "from", owner.id, "to", s.id)
		}
	}
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
