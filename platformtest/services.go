// This file runs the platform's in-process services on every realm while
// the realm is in the router (started when the realm comes up through
// Install, Up or ReleaseRealm, stopped when it goes down): one trusted
// local session per realm, handed to every service as a realm.Host (the
// seam of package internal/realm). The data backend plugs in here. The
// same session answers the platform's own registration lookups
// (force_reregister).
//
// ironflock.location_service.update is not served by any service: callers
// get wamp.error.no_such_procedure, as on the real platform.

package platformtest

import (
	"slices"
	"time"

	"github.com/gammazero/nexus/v3/client"
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
	p    *Platform
	host *realm.Host // Session nil when it could not join
}

// startRealmRuntime joins the platform's local session to a realm that
// was just added and attaches the services.
func (p *Platform) startRealmRuntime(gen *generation, ri realm.Info) *realmRuntime {
	rr := &realmRuntime{p: p, host: &realm.Host{Realm: ri, Clock: p.clock, Log: p.log}}
	c, err := client.ConnectLocal(gen.rt, client.Config{
		Realm:           ri.Name,
		HelloDetails:    wamp.Dict{"authid": platformAuthID},
		LocalQueueSize:  localQueueSize,
		ResponseTimeout: 10 * time.Second,
		Logger:          nexusLogger{p.log},
	})
	if err != nil {
		p.log.Error("platform session cannot join realm", "realm", ri.Name, "err", err)
		return rr
	}
	rr.host.Session = c
	p.mu.Lock()
	svcs := slices.Clone(p.services)
	p.mu.Unlock()
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
		rr.p.log.Error("service cannot attach", "service", s.Name(), "realm", rr.host.Realm.Name, "err", err)
	}
}

// stop ends the realm's Host and its local session; nil-safe.
func (rr *realmRuntime) stop() {
	if rr != nil {
		rr.host.End()
	}
}

// addService runs s on every realm, now and whenever a realm comes up.
func (p *Platform) addService(s realm.Service) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	p.services = append(p.services, s)
	var rrs []*realmRuntime
	if p.gen != nil {
		for _, rr := range p.gen.realms {
			rrs = append(rrs, rr)
		}
	}
	p.mu.Unlock()
	for _, rr := range rrs {
		rr.attach(s)
	}
}
