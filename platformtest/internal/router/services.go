// This file runs the platform's in-process services on every realm while
// the realm is in the router (started when the realm comes up through
// Install, Up or ReleaseRealm, stopped when it goes down): one trusted
// local session per realm, handed to every service as a realm.Host (the
// seam of package internal/realm). The data backend plugs in here. The
// same session answers the platform's own registration lookups and
// watches sessions leave (force_reregister).

package router

import (
	"errors"
	"slices"
	"sync"
	"time"

	nexusclient "github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// localQueueSize is the router-to-service queue of a local session; nexus
// drops events for a local session whose queue is full.
const localQueueSize = 1 << 15

// platformAuthID is the authid of the platform's own local sessions.
const platformAuthID = "ironflock-platform"

// realmRuntime is what runs for one realm while it is in the router.
type realmRuntime struct {
	rt   *Router
	host *realm.Host // Session nil when it could not join
	// leaves tells takeovers when a session has left (leaves.go).
	leaves leaveWatch

	mu     sync.Mutex
	failed []string // the services that could not attach (Ready)
}

// startRealmRuntime joins the platform's local session to a realm that
// was just added and attaches the services.
func (rt *Router) startRealmRuntime(gen *generation, ri realm.Info) *realmRuntime {
	rr := &realmRuntime{rt: rt, host: &realm.Host{Realm: ri, Clock: rt.clock, Log: rt.log, Pool: rt.handlers, Demand: &realm.Demand{}}}
	c, err := nexusclient.ConnectLocal(gen.nx, nexusclient.Config{
		Realm:           ri.Name,
		HelloDetails:    wamp.Dict{"authid": platformAuthID},
		LocalQueueSize:  localQueueSize,
		ResponseTimeout: 10 * time.Second,
		Logger:          nexusLogger{l: rt.log},
	})
	if err != nil {
		rt.log.Error("platform session cannot join realm", "realm", ri.Name, "err", err)
		return rr
	}
	rr.host.Session = c
	if err := c.Subscribe(string(wamp.MetaEventSessionOnLeave), rr.leaves.onLeave, nil); err != nil {
		rt.log.Error("platform session cannot watch sessions leave", "realm", ri.Name, "err", err)
	}
	rt.mu.Lock()
	svcs := slices.Clone(rt.services)
	rt.mu.Unlock()
	for _, s := range svcs {
		rr.attach(s)
	}
	return rr
}

func (rr *realmRuntime) attach(s realm.Service) {
	if rr.host.Session == nil {
		return
	}
	if err := s.Attach(rr.host); err != nil {
		rr.rt.log.Error("service cannot attach", "service", s.Name(), "realm", rr.host.Realm.Name, "err", err)
		rr.mu.Lock()
		rr.failed = append(rr.failed, s.Name())
		rr.mu.Unlock()
	}
}

// stop ends the realm's Host and its local session; nil-safe.
func (rr *realmRuntime) stop() {
	if rr != nil {
		rr.host.End()
	}
}

// AddService runs s on every realm, now and whenever a realm comes up.
func (rt *Router) AddService(s realm.Service) {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.mu.Lock()
	rt.services = append(rt.services, s)
	var rrs []*realmRuntime
	if rt.gen != nil {
		for _, rr := range rt.gen.realms {
			rrs = append(rrs, rr)
		}
	}
	rt.mu.Unlock()
	for _, rr := range rrs {
		rr.attach(s)
	}
}

// LocalSession joins a trusted local session to a realm that is in the
// router, as the platform's services do; for tests and tools that watch a
// realm from inside. The caller closes it. The router does not see what
// it subscribes to, so the realm's feeds are published from then on, to
// subscribers or not (realm.Demand.Pin).
func (rt *Router) LocalSession(realmName, authID string) (*nexusclient.Client, error) {
	rt.mu.Lock()
	gen := rt.gen
	if gen != nil && gen.realms[realmName] != nil {
		gen.realms[realmName].host.Demand.Pin()
	}
	rt.mu.Unlock()
	if gen == nil {
		return nil, errors.New("router is down")
	}
	return nexusclient.ConnectLocal(gen.nx, nexusclient.Config{
		Realm:           realmName,
		HelloDetails:    wamp.Dict{"authid": authID},
		LocalQueueSize:  localQueueSize,
		ResponseTimeout: 10 * time.Second,
		Logger:          nexusLogger{l: rt.log},
	})
}
