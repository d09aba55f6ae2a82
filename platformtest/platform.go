// This file holds the Platform type, its construction (New, Start), its
// addresses and Close.

package platformtest

import (
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Platform is an in-memory IronFlock platform: a WAMP router with the
// platform's authentication and authorization, provisioning of projects,
// devices, apps and installations, fault injection, a clock and inspection
// of the traffic, all behind one HTTP server on the loopback interface.
//
// A Platform is safe for concurrent use.
type Platform struct {
	set   settings
	log   *slog.Logger
	clock *Clock
	tb    testing.TB // set by New: provisioning mistakes fail the test
	mux   *http.ServeMux
	addr  string // host:port, fixed when the platform starts

	// ctl serialises lifecycle changes (Up, Down, realms entering or leaving
	// the router, Close). It is taken before mu, never while holding it.
	ctl sync.Mutex
	// joinLock is held shared by a connection from the moment its HELLO is
	// handed to the router until its authentication starts, and exclusively
	// while a realm is removed from the router or the router is closed:
	// nexus panics when a realm closes under a join in that window.
	joinLock sync.RWMutex
	// wg counts the goroutines of the HTTP server and of every connection.
	wg sync.WaitGroup

	mu       sync.Mutex // guards everything below
	closed   bool
	gen      *generation // the running router; nil while the platform is down
	conns    map[*trackedConn]struct{}
	peers    map[*wsPeer]struct{}
	st       state
	withheld map[string]bool
	services []realm.Service
	sessions map[uint64]*session
	sessWake chan struct{} // closed and replaced whenever sessions change
	recorded []Message
	authLog  []AuthAttempt
	refusals []*refusal

	fleet *fleetdb.DB // the data backend of every realm (fleetdb.go); set once by Start
}

// New starts a platform for a test. It fails tb when the platform cannot
// start and closes the platform in tb.Cleanup. Provisioning mistakes on a
// platform made by New (a duplicate name, an unknown device...) fail tb too.
func New(tb testing.TB, opts ...Option) *Platform {
	tb.Helper()
	p, err := Start(opts...)
	if err != nil {
		tb.Fatalf("platformtest: %v", err)
	}
	p.tb = tb
	tb.Cleanup(p.Close)
	return p
}

// Start starts a platform outside of a test (TestMain, cmd/flockd). The
// caller must Close it. Provisioning mistakes on a platform made by Start
// panic; the error-returning forms are used by Apply.
func Start(opts ...Option) (*Platform, error) {
	set := defaultSettings()
	for _, o := range opts {
		o(&set)
	}
	p := &Platform{
		set:      set,
		log:      set.logger,
		clock:    newClock(set.start),
		mux:      http.NewServeMux(),
		conns:    map[*trackedConn]struct{}{},
		peers:    map[*wsPeer]struct{}{},
		st:       newState(),
		withheld: map[string]bool{},
		sessions: map[uint64]*session{},
		sessWake: make(chan struct{}),
	}
	p.mux.HandleFunc(wire.RouterPath, p.serveWAMP)
	p.fleet = p.newFleetDB()
	p.services = append(p.services, p.fleet)
	p.mountREST()

	ln, err := net.Listen("tcp", set.addr)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", set.addr, err)
	}
	p.addr = ln.Addr().String()
	p.ctl.Lock()
	defer p.ctl.Unlock()
	if err := p.upLocked(ln); err != nil {
		_ = ln.Close()
		return nil, err
	}
	p.log.Info("platform listening", "url", p.URL())
	return p, nil
}

// URL returns the WAMP WebSocket URL, ws://127.0.0.1:PORT/ws-ua-usr.
func (p *Platform) URL() string { return "ws://" + p.addr + wire.RouterPath }

// HTTPURL returns the base URL of the HTTP server, http://127.0.0.1:PORT.
// It is also the DEVICE_ENDPOINT_URL of every installation.
func (p *Platform) HTTPURL() string { return "http://" + p.addr }

// Clock returns the platform clock.
func (p *Platform) Clock() *Clock { return p.clock }

// Close stops the platform: it closes every connection abruptly, the
// router and the HTTP server, and waits for all their goroutines. Close is
// idempotent.
func (p *Platform) Close() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.mu.Unlock()
	p.downLocked()
	p.wg.Wait()
	p.clock.stop()
	p.mu.Lock()
	p.wakeSessionsLocked()
	p.mu.Unlock()
	p.log.Info("platform closed")
}

// fail reports a provisioning error: it fails the test of a platform made
// by New and panics on a platform made by Start.
func (p *Platform) fail(err error) {
	if p.tb != nil {
		p.tb.Helper()
		p.tb.Fatalf("platformtest: %v", err)
		return
	}
	panic("platformtest: " + err.Error())
}
