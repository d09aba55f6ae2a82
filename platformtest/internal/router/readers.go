// This file holds the end of cross-app reader sessions whose grant was
// revoked: the router re-checks every app_reader session against the
// registry and kills those no grant covers any more (GOODBYE
// wamp.close.killed with a message), as the platform's authorizer does on
// its next verdict. A killed reader that reconnects is refused (no_grant).

package router

import (
	"context"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// killTimeout bounds the meta call that ends one session.
const killTimeout = 5 * time.Second

// DropRevokedReaders ends every app_reader session whose consumer no
// longer holds a grant for the provider realm it joined. It returns how
// many it ended.
func (rt *Router) DropRevokedReaders() int {
	type reader struct {
		id              uint64
		realm           string
		swarm, consumer int
		provider        int
	}
	var readers []reader
	rt.mu.Lock()
	for _, s := range rt.sessions {
		if s.active && s.role == wire.RoleAppReader && s.app != nil {
			readers = append(readers, reader{s.id, s.realm.Name, s.realm.Swarm, s.app.Key, s.realm.App})
		}
	}
	rt.mu.Unlock()
	ended := 0
	for _, r := range readers {
		var granted bool
		rt.reg.Do(func(st *registry.State) {
			if p := st.App(r.provider); p != nil {
				granted = st.Granted(r.swarm, r.consumer, p.Name)
			}
		})
		if granted {
			continue
		}
		if rt.kill(r.realm, r.id, "the data-access grant was revoked") {
			ended++
		}
	}
	return ended
}

// kill ends session id on realm name through the realm's meta API.
func (rt *Router) kill(name string, id uint64, message string) bool {
	h := rt.Host(name)
	if h == nil || h.Session == nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	_, err := h.Session.Call(ctx, string(wamp.MetaProcSessionKill), nil, wamp.List{wamp.ID(id)},
		wamp.Dict{"reason": wire.CloseKilled, "message": message}, nil)
	if err != nil {
		rt.log.Warn("cannot end a reader session", "realm", name, "session", id, "err", err)
		return false
	}
	rt.log.Info("reader session ended", "realm", name, "session", id, "why", message)
	return true
}
