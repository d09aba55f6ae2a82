// This file holds the procedures a Host serves to the router directly.
// Through nexus, one CALL of a device passes through about nine
// goroutines before its RESULT is written: the link's reader, the
// caller's session, the dealer, the platform session's receiver, two
// goroutines nexus's client starts per invocation, the handler's worker,
// the platform session (for the YIELD) and the dealer again. Each of them
// allocates, and under a collection each pays a share of the mark before
// it goes on: with thousands of devices calling, the shares add up to a
// stall (docs/performance.md, "session 8"). A procedure registered through
// Host.Register is also kept here, so the router can invoke the handler
// itself for a plain CALL of a network session and write the answer on
// the link: the reader, one worker, the writer. The registration in nexus
// stays, for every other caller and for the meta procedures.

package realm

import (
	"context"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// Procedure is a service procedure the router may invoke itself.
type Procedure struct {
	// Handler is the service's handler as registered (not yet on the
	// Pool).
	Handler client.InvocationHandler
	// Registration is the procedure's registration ID in nexus, for the
	// INVOCATION the handler sees.
	Registration wamp.ID
	// Ctx is the context of its invocations: canceled when the Host ends,
	// as nexus's client cancels its handlers when it closes.
	Ctx context.Context
}

// keepDirect keeps procedure, just registered in nexus, for the router,
// unless its options ask for what only nexus's dealer does (pattern
// matching, an invocation policy, forwarded timeouts).
func (h *Host) keepDirect(procedure string, fn client.InvocationHandler, options wamp.Dict) {
	for k, v := range options {
		switch k {
		case wamp.OptDiscloseCaller:
		case wire.OptMatch:
			if m, _ := v.(string); m != "" && m != wire.MatchExact {
				return
			}
		default:
			return
		}
	}
	reg, ok := h.Session.RegistrationID(procedure)
	if !ok {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ended {
		return
	}
	if h.direct == nil {
		h.direct = map[string]Procedure{}
		h.life, h.endLife = context.WithCancel(context.Background())
	}
	h.direct[procedure] = Procedure{Handler: fn, Registration: reg, Ctx: h.life}
}

// Serve starts serving a call of uri, a procedure registered through
// Register: false once the Host has ended, or when uri is not one of
// them (then nexus routes the call, as before). After true, the caller
// answers the call and then calls Served; End waits for that, as nexus's
// client waits for its handlers when it closes, so a caller gets its
// answer before its realm goes.
func (h *Host) Serve(uri string) (Procedure, bool) {
	h.mu.RLock()
	defer h.mu.RUnlock()
	p, ok := h.direct[uri]
	if !ok || h.ended {
		return Procedure{}, false
	}
	h.serving.Add(1)
	return p, true
}

// Served ends a call Serve started.
func (h *Host) Served() { h.serving.Done() }

// Ended reports whether the Host has ended.
func (h *Host) Ended() bool {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.ended
}
