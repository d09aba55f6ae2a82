// Package router is the core of the fake platform's message router: a
// nexus router behind the platform's own WebSocket peers, with the
// platform's WAMP-CRA authentication (decided by internal/registry) and
// the authorization rules of role app, the sessions it admitted, the
// recording of what app sessions send, interceptions of single messages,
// the connection faults (drop, freeze, restart, withheld realms), the
// emulation of force_reregister, and the services of every realm (through
// the seam of internal/realm).
//
// It lives in its own package, not in the platformtest facade, because it
// is the one part of the fake with its own concurrency (a goroutine pair
// per link, a lifecycle lock, a join lock against nexus's realm removal)
// and its own state (sessions, links, recording): kept apart, its locks
// are never mixed with the registry's or a service's, and the facade
// only delegates.
package router

import (
	"cmp"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/internal/workpool"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Config configures a Router.
type Config struct {
	Registry *registry.Registry
	Clock    realm.Clock
	Log      *slog.Logger
	// Handler serves every HTTP request of the platform's server; the
	// Router itself is the handler of the WAMP endpoint.
	Handler http.Handler
	// Keepalive is the interval of the server's WebSocket pings; 0 turns
	// them off.
	Keepalive time.Duration
	// Services run on every realm.
	Services []realm.Service
	// Limits bound what one link may cost; zero fields take the defaults.
	Limits Limits
	// Record bounds the recording; the zero value keeps everything.
	Record RecordLimits
	// AuthLog is how many authentication attempts the log keeps, the
	// newest; 0 or less: DefaultAuthLogLimit.
	AuthLog int
	// Metrics receives the router's metrics (metrics.go); nil: a registry
	// of the router's own.
	Metrics *metrics.Registry
}

// Router is the platform's message router. It is safe for concurrent use.
type Router struct {
	cfg    Config
	reg    *registry.Registry
	clock  realm.Clock
	log    *slog.Logger
	limits Limits
	addr   string // host:port, fixed by the first Up
	// unauth counts the WebSocket links not yet admitted and keeps the
	// line of those waiting for a place (admission.go).
	unauth admission
	// admitted counts the links admitted (pace.go measures its rate), and
	// pace gives the links refused over the cap their slots.
	admitted atomic.Int64
	pace     pacer

	// ctl serialises lifecycle changes (Up, Down, realms entering or leaving
	// the router, Close). It is taken before mu, never while holding it.
	ctl sync.Mutex
	// reconciled is the registry's RealmsVersion the last reconciliation
	// brought the router in line with, plus one (0: none yet).
	reconciled atomic.Uint64
	// joinLock is held shared by a connection from the moment its HELLO is
	// handed to the router until its authentication starts, and exclusively
	// while a realm is removed from the router or the router is closed:
	// nexus panics when a realm closes under a join in that window.
	joinLock sync.RWMutex
	// wg counts the goroutines of the HTTP server, of every connection and
	// of every message an interception holds.
	wg sync.WaitGroup

	mu            sync.Mutex // guards everything below
	closed        bool
	gen           *generation // the running router; nil while down
	conns         map[*trackedConn]struct{}
	peers         map[*wsPeer]struct{}
	withheld      map[string]bool
	outage        authOutage // authoutage.go
	services      []realm.Service
	sessions      map[uint64]*session
	byID          sync.Map      // session ID → *session: sessions read without mu (sessionByID)
	sessWake      chan struct{} // closed and replaced whenever sessions change
	online        onlineDevices // (online.go)
	rec           *recording    // its own lock (recording.go)
	authLog       bounded[AuthAttempt]
	interceptions []*Interception
	intercepting  atomic.Int32  // len(interceptions), read without mu
	directSeq     atomic.Uint64 // INVOCATION IDs of the calls the router serves itself (direct.go)

	// onTakeoverWait, set by tests before Start, is told each time a
	// takeover waits for a leaving owner (reregister.go).
	onTakeoverWait func(session uint64)
	// onDirect, set by tests before Start, is told each call the router
	// serves itself (direct.go).
	onDirect func(procedure string)

	taps taps // watchers of the live traffic (tap.go)

	met        routerMetrics // (metrics.go)
	busy       episode       // upgrades refused over the cap of links awaiting authentication (limits.go)
	acceptErrs episode       // failed accepts (limits.go)
	// handlers runs the services' procedure handlers on kept goroutines
	// (realm.Host.Pool), for every realm and generation until Close.
	handlers *workpool.Pool
	// calls runs the handlers of the calls the router serves itself
	// (direct.go) on a fixed set of goroutines, handlers when it is full.
	calls *workpool.Queue
}

// handlerIdle is how long a worker of the services' handlers waits for
// the next invocation before it ends.
const handlerIdle = 10 * time.Second

// The goroutines of Router.calls, and how many calls may wait for them.
// Each holds an append into PostgreSQL until its group is written: 256
// of them keep groups large and rows flowing at 10,000 a second.
const (
	callWorkers = 256
	callsQueued = 8192
)

// New returns a router that is down; Up starts it.
func New(cfg Config) *Router {
	rt := &Router{
		cfg:      cfg,
		reg:      cfg.Registry,
		clock:    cfg.Clock,
		log:      cfg.Log,
		limits:   cfg.Limits.orDefault(),
		conns:    map[*trackedConn]struct{}{},
		peers:    map[*wsPeer]struct{}{},
		withheld: map[string]bool{},
		services: cfg.Services,
		rec:      &recording{lim: cfg.Record},
		authLog:  bounded[AuthAttempt]{limit: cmp.Or(max(cfg.AuthLog, 0), DefaultAuthLogLimit)},
		sessions: map[uint64]*session{},
		sessWake: make(chan struct{}),
		handlers: workpool.New(handlerIdle),
		calls:    workpool.NewQueue(callWorkers, callsQueued),
	}
	if cfg.Metrics == nil {
		cfg.Metrics = metrics.New()
	}
	rt.registerMetrics(cfg.Metrics)
	return rt
}

// Start serves on ln, whose address later Ups listen on again.
func (rt *Router) Start(ln net.Listener) error {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.addr = ln.Addr().String()
	return rt.upLocked(ln)
}

// Close stops the router: it closes every connection abruptly, the router
// and the HTTP server, and waits for all their goroutines. Close is
// idempotent; a closed router stays down.
func (rt *Router) Close() {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.mu.Lock()
	if rt.closed {
		rt.mu.Unlock()
		return
	}
	rt.closed = true
	rt.mu.Unlock()
	rt.downLocked()
	rt.wg.Wait()
	rt.calls.Close()
	rt.handlers.Close()
	rt.closeTaps()
	rt.mu.Lock()
	rt.wakeSessionsLocked()
	rt.mu.Unlock()
}

// Reconcile brings the router's realms in line with the provisioned
// realms that are not withheld. When the provisioned realms did not change
// since the last reconciliation it returns at once: a change of the
// management API (each installation) calls it.
func (rt *Router) Reconcile() {
	if rt.reconciled.Load() == rt.reg.RealmsVersion()+1 {
		return
	}
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.reconcileLocked()
}

// RestartRealms takes the named realms that are in the router down and up
// again, so that their services attach anew (a data template changed
// under them); their sessions end with GOODBYE wamp.close.system_shutdown
// and join again. Realms not in the router are left alone.
func (rt *Router) RestartRealms(names []string) {
	rt.ctl.Lock()
	defer rt.ctl.Unlock()
	rt.mu.Lock()
	gen := rt.gen
	var up []realm.Info
	for _, name := range names {
		if gen != nil && gen.realms[name] != nil {
			up = append(up, gen.realms[name].host.Realm)
		}
	}
	rt.mu.Unlock()
	for _, ri := range up {
		rt.realmDown(gen, ri.Name)
		rt.realmUp(gen, ri)
	}
}

// Host returns the current Host of a realm that is in the router, or nil.
func (rt *Router) Host(name string) *realm.Host {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.gen == nil || rt.gen.realms[name] == nil {
		return nil
	}
	return rt.gen.realms[name].host
}
