// Package realm is the seam between the fake platform's router and its
// services. A realm realm-<swarm>-<app>-<stage> is the home of one app's
// data backend in one stage; while it is in the router, the router runs
// one trusted local WAMP session on it and hands each service a Host for
// that session. A service (the data backend, the file service, cross-app
// discovery, the agent runtime) attaches its procedures and subscriptions
// through the Host and sees exactly what the real services see on the
// wire: callers are disclosed, so invocations carry caller_authid (the
// device serial) and caller_authrole.
//
// The package knows nothing of the services nor of the router; both import
// it.
package realm

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/workpool"
)

// Info identifies the realm of an app's data backend in one stage.
type Info struct {
	Name  string // realm-<swarm>-<app>-<stage>
	Swarm int
	App   int
	Stage string // "DEV" or "PROD"
}

// NewInfo returns the Info of app's realm in swarm and stage ("DEV" or
// "PROD").
func NewInfo(swarm, app int, stage string) Info {
	return Info{Name: wire.Realm(swarm, app, stage), Swarm: swarm, App: app, Stage: stage}
}

// Clock is the platform clock as services see it.
type Clock interface {
	// Now returns the current platform time.
	Now() time.Time
	// After fires once platform time reaches Now()+d, through real time
	// passing or a test moving the clock.
	After(d time.Duration) <-chan time.Time
}

// Host is what a service gets for one realm while the realm is in the
// router: the realm, its trusted local session, the platform clock and a
// logger. A Host ends with the realm (Down, Restart, WithholdRealm);
// calls on an ended Host fail, and the next Host of the same realm is
// handed to the services again.
type Host struct {
	Realm   Info
	Session *client.Client // the platform's own session on the realm
	Clock   Clock
	Log     *slog.Logger
	// Pool runs the handlers of Register on goroutines kept between
	// invocations, their stacks grown (nil: on nexus's goroutine of
	// each invocation).
	Pool *workpool.Pool
	// Demand says which feed topics could reach a subscriber (nil: all).
	Demand *Demand

	mu      sync.RWMutex // held shared by publications in flight, exclusively by End
	ended   bool
	direct  map[string]Procedure // what the router may invoke itself (direct.go)
	life    context.Context      // the context of direct invocations, canceled by End
	endLife context.CancelFunc
	serving sync.WaitGroup // direct calls being served (Serve)
}

// ErrEnded is the error of a publication on a Host that has ended.
var ErrEnded = errors.New("realm: the host has ended")

// Register registers a service procedure. Callers are disclosed, so the
// handler sees caller_authid (the device serial) and caller_authrole. The
// router may invoke the handler itself for a network session's CALL
// (Serve, direct.go): the handler cannot tell.
func (h *Host) Register(procedure string, fn client.InvocationHandler, options wamp.Dict) error {
	opts := wamp.Dict{wamp.OptDiscloseCaller: true}
	for k, v := range options {
		opts[k] = v
	}
	served := fn
	if h.Pool != nil {
		served = pooled(h.Pool, fn)
	}
	if err := h.Session.Register(procedure, served, opts); err != nil {
		return err
	}
	h.keepDirect(procedure, fn, options)
	return nil
}

// pooled is fn run on a worker of p.
func pooled(p *workpool.Pool, fn client.InvocationHandler) client.InvocationHandler {
	return func(ctx context.Context, inv *wamp.Invocation) (res client.InvokeResult) {
		p.Do(func() { res = fn(ctx, inv) })
		return res
	}
}

// Subscribe subscribes a service handler to a topic; a feed topic is
// wanted (Demand) from then on.
func (h *Host) Subscribe(topic string, fn client.EventHandler, options wamp.Dict) error {
	match, _ := wamp.AsString(options[wire.OptMatch])
	h.Demand.Add(NewPattern(topic, match))
	return h.Session.Subscribe(topic, fn, options)
}

// Wanted reports whether a publication to topic could reach a subscriber
// now (Demand): a service may leave out one that could not.
func (h *Host) Wanted(topic string) bool { return h.Demand.Wanted(topic) }

// Publish publishes on behalf of the platform. Once the Host has ended it
// fails with ErrEnded: the router no longer reads a session that said
// goodbye, so a publication would wait forever, and with it the event
// handler making it and the session's Close, which waits for that
// handler.
func (h *Host) Publish(topic string, options wamp.Dict, args wamp.List, kwargs wamp.Dict) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.ended {
		return ErrEnded
	}
	return h.Session.Publish(topic, options, args, kwargs)
}

// End ends the Host when its realm leaves the router: it waits for the
// publications in flight, makes later ones fail with ErrEnded, cancels
// the calls the router serves directly and waits for their answers, and
// closes the session. Services' handlers may still run while the session closes.
func (h *Host) End() {
	h.mu.Lock()
	h.ended = true
	h.direct = nil
	if h.endLife != nil {
		h.endLife()
	}
	h.mu.Unlock()
	h.serving.Wait()
	if h.Session != nil {
		_ = h.Session.Close()
	}
}

// Service is an in-process WAMP service of the platform, run on every
// realm.
type Service interface {
	// Name names the service in logs.
	Name() string
	// Attach registers the service on one realm. It is called for every
	// realm that comes up, from the goroutine bringing it up, and again
	// with a new Host after the realm came back.
	Attach(h *Host) error
}
