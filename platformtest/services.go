// This file holds the hook for in-process WAMP services: the platform runs
// one trusted local session on every realm while the realm is in the
// router (started when the realm comes up through Install, Up or
// ReleaseRealm, stopped when it goes down), and every registered service
// attaches its procedures and subscriptions to it. The fake data backend
// and file service plug in here. The same session answers the platform's
// own registration lookups (force_reregister).
//
// No service is registered by default: ironflock.location_service.update,
// for one, is not served (callers get wamp.error.no_such_procedure).

package platformtest

import (
	"slices"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
)

// localQueueSize is the router-to-service queue of a local session; nexus
// drops events for a local session whose queue is full.
const localQueueSize = 1 << 15

// platformAuthID is the authid of the platform's own local sessions.
const platformAuthID = "ironflock-platform"

// service is an in-process WAMP service run on every realm.
type service struct {
	name string
	// attach registers the service on one realm. It is called for every
	// realm that comes up, from the goroutine bringing it up.
	attach func(rr *realmRuntime) error
}

// realmRuntime is what runs for one realm while it is in the router.
type realmRuntime struct {
	p      *Platform
	info   realmInfo
	client *client.Client // trusted local session; nil when it could not join
}

// startRealmRuntime joins the platform's local session to a realm that
// was just added and attaches the services.
func (p *Platform) startRealmRuntime(gen *generation, ri realmInfo) *realmRuntime {
	rr := &realmRuntime{p: p, info: ri}
	c, err := client.ConnectLocal(gen.rt, client.Config{
		Realm:           ri.name,
		HelloDetails:    wamp.Dict{"authid": platformAuthID},
		LocalQueueSize:  localQueueSize,
		ResponseTimeout: 10 * time.Second,
		Logger:          nexusLogger{p.log},
	})
	if err != nil {
		p.log.Error("platform session cannot join realm", "realm", ri.name, "err", err)
		return rr
	}
	rr.client = c
	p.mu.Lock()
	svcs := slices.Clone(p.services)
	p.mu.Unlock()
	for _, s := range svcs {
		rr.attach(s)
	}
	return rr
}

func (rr *realmRuntime) attach(s service) {
	if rr.client == nil {
		return
	}
	if err := s.attach(rr); err != nil {
		rr.p.log.Error("service cannot attach", "service", s.name, "realm", rr.info.name, "err", err)
	}
}

// stop ends the realm's local session; nil-safe.
func (rr *realmRuntime) stop() {
	if rr != nil && rr.client != nil {
		_ = rr.client.Close()
	}
}

// register registers a service procedure. Callers are disclosed, so the
// handler sees caller_authid (the device serial) and caller_authrole.
func (rr *realmRuntime) register(procedure string, h client.InvocationHandler, options wamp.Dict) error {
	opts := wamp.Dict{wamp.OptDiscloseCaller: true}
	for k, v := range options {
		opts[k] = v
	}
	return rr.client.Register(procedure, h, opts)
}

// subscribe subscribes a service handler to a topic.
func (rr *realmRuntime) subscribe(topic string, h client.EventHandler, options wamp.Dict) error {
	return rr.client.Subscribe(topic, h, options)
}

// addService runs s on every realm, now and whenever a realm comes up.
func (p *Platform) addService(s service) {
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
