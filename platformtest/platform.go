// This file holds the Platform type, its construction (New, Start), its
// addresses and Close. A Platform is a facade: the provisioned world is
// internal/registry, the message router internal/router, the management
// REST API internal/rest, and each platform service a package of its own
// attached to realms through internal/realm.

package platformtest

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/agents"
	"github.com/flockgo/ironflock/platformtest/internal/appaccess"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/edge"
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/fleetfiles"
	"github.com/flockgo/ironflock/platformtest/internal/location"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/router"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/testhooks"
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
	addr  string     // host:port, fixed when the platform starts

	reg     *registry.Registry // the provisioned world
	data    *datadir.Dir       // the data folder (datadir.go); nil: everything in memory
	kept    kept               // what the services keep in the data folder (datadir.go)
	full    memoryFull         // the in-memory store's bound (memory.go)
	rt      *router.Router     // the message router and its realms
	handles sync.Map           // registry entity → its Go handle (provision.go)

	fleet     *fleetdb.DB     // the data backend of every realm (fleetdb.go)
	fleetDone sync.Once       // closes fleet's store once
	agents    *agents.Runtime // the agent runtime (agents.go)

	files   *fleetfiles.Service // the file service of every realm (files.go)
	objects store.Objects       // where it keeps its objects (files.go)
	keys    store.Keys          // where the platform keeps its keys (files.go)

	closing sync.Once // Close
}

// New starts a platform for a test. It fails tb when the platform cannot
// start and closes the platform in tb.Cleanup. Provisioning mistakes on a
// platform made by New (a duplicate name, an unknown device...) fail tb too.
func New(tb testing.TB, opts ...Option) *Platform {
	tb.Helper()
	// tb is known before the platform's goroutines start (WithStrictColumns
	// fails it from them).
	p, err := Start(append(opts[:len(opts):len(opts)], func(s *settings) { s.tb = tb })...)
	if err != nil {
		tb.Fatalf("platformtest: %v", err)
	}
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
	set.metrics = metrics.New() // the stores' options read it when they open (ops.go)
	p := &Platform{set: set, log: set.logger, clock: newClock(set.start), tb: set.tb}
	if err := p.openStores(); err != nil { // datadir.go
		return nil, err
	}
	ln, at, err := listenNow(set) // serve_later.go
	if err != nil {
		p.closeStores()
		return nil, err
	}
	p.addr = at.String()
	mux := http.NewServeMux()
	// The HTTP edge checks Host and Origin before any route (edge.go).
	guard, err := edge.New(edge.Config{Loopback: loopback(at), Hosts: set.hosts, Origins: set.origins, Log: p.log}, mux)
	if err != nil {
		closeListener(ln)
		p.closeStores()
		return nil, err
	}
	rows, keys, err := p.openFleetStore()
	if err != nil {
		closeListener(ln)
		p.closeStores()
		return nil, err
	}
	key, err := keys.Key(context.Background(), store.SecretColumnsKey)
	if err != nil {
		closeListener(ln)
		_ = rows.Close()
		p.closeStores()
		return nil, err
	}
	p.fleet = fleetdb.New(fleetdb.Config{Lookup: p.realmDataTemplate, Store: rows, Clock: p.clock, Log: p.log,
		SecretKey: key, Dropped: p.columnDropped})
	p.agents = agents.New(agents.Config{Clock: p.clock, Log: p.log})
	if p.files, err = p.newFileService(); err != nil { // files.go
		closeListener(ln)
		p.closeFleet()
		_ = p.objects.Close()
		p.closeStores()
		return nil, err
	}
	services := []realm.Service{p.fleet, appaccess.New(p.reg), p.agents, p.files} // the data backend, cross-app discovery, the agent runtime, the file service
	if !set.noLocation {
		services = append(services, location.New(p.reg)) // the location service (location.go)
	}
	p.rt = router.New(router.Config{
		Registry: p.reg, Clock: p.clock, Log: p.log, Handler: guard,
		Keepalive: set.keepalive, Record: set.record, AuthLog: set.authLog, Limits: set.limits, Services: services,
		Metrics: set.metrics,
	})
	mux.Handle(wire.RouterPath, p.rt)
	p.files.Mount(mux) // the object store and permanent URLs
	// The web console at /, when WithConsole asked for it (console.go).
	p.mountConsole(mux)
	rest.New(rest.Config{
		Registry: p.reg, Clock: p.clock, Log: p.log,
		Online: p.rt.Online, Changed: p.rt.Reconcile, Agents: p.agents,
		RefreshTransform: p.refreshTransformInfo, // postgres.go
	}).Mount(mux)

	if set.later {
		return p, nil // Serve listens
	}
	if err := p.rt.Start(ln); err != nil {
		_ = ln.Close()
		p.files.Close()
		p.closeFleet()
		p.closeStores()
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

// ManagementURL returns the base URL of the management REST API,
// http://127.0.0.1:PORT/v1/platform.
func (p *Platform) ManagementURL() string { return p.HTTPURL() + rest.Prefix }

// OpenAPI returns the OpenAPI 3.1 document of the management REST API, as
// served at /v1/platform/openapi.json.
func OpenAPI() []byte { return rest.OpenAPI() }

// Clock returns the platform clock.
func (p *Platform) Clock() *Clock { return p.clock }

// Close stops the platform: it closes every connection abruptly, the
// router and the HTTP server, and waits for all their goroutines. Close is
// idempotent.
func (p *Platform) Close() {
	p.closing.Do(func() {
		if testhooks.AuditOnClose && p.tb != nil {
			if err := p.reg.Audit(); err != nil {
				p.tb.Errorf("platformtest: %v", err)
			}
		}
		p.rt.Close()
		p.files.Close()
		p.closeFleet()
		p.clock.stop()
		p.closeStores()
		p.log.Info("platform closed")
	})
}

// reconcile brings the router's realms in line with the provisioned ones
// (an install may have created a realm).
func (p *Platform) reconcile() { p.rt.Reconcile() }

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
