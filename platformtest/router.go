// This file holds the router lifecycle: a generation (one nexus router and
// one HTTP server, from Up to Down), the realms present in it (reconciled
// with the provisioned realms minus the withheld ones), the realm
// configuration, and the adapter that sends nexus logs to slog.

package platformtest

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/gammazero/nexus/v3/router"
	"github.com/gammazero/nexus/v3/router/auth"
	"github.com/gammazero/nexus/v3/wamp"
)

// generation is one run of the router and the HTTP server.
type generation struct {
	rt        router.Router
	srv       *http.Server
	serveDone chan struct{}
	realms    map[string]*realmRuntime // guarded by Platform.mu
}

// upLocked starts a router and serves on ln (a new listener on p.addr when
// ln is nil). The caller holds p.ctl.
func (p *Platform) upLocked(ln net.Listener) error {
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", p.addr); err != nil {
			return fmt.Errorf("listen on %s: %w", p.addr, err)
		}
	}
	rt, err := router.NewRouter(&router.Config{}, nexusLogger{p.log})
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("start router: %w", err)
	}
	gen := &generation{
		rt: rt,
		srv: &http.Server{
			Handler:           p.mux,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(p.log.Handler(), slog.LevelDebug),
		},
		serveDone: make(chan struct{}),
		realms:    map[string]*realmRuntime{},
	}
	p.mu.Lock()
	p.gen = gen
	p.wg.Add(1)
	p.mu.Unlock()
	p.reconcileLocked() // realms and their services are up before the first client
	go func() {
		defer p.wg.Done()
		defer close(gen.serveDone)
		_ = gen.srv.Serve(&trackingListener{Listener: ln, p: p})
	}()
	return nil
}

// downLocked stops listening, closes every connection abruptly, stops the
// realms' services and closes the router, then waits for the goroutines of
// the server and the connections. The caller holds p.ctl.
func (p *Platform) downLocked() {
	p.mu.Lock()
	gen := p.gen
	p.gen = nil
	p.mu.Unlock()
	if gen == nil {
		return
	}
	_ = gen.srv.Close()
	<-gen.serveDone
	for _, c := range p.trackedConns(false) {
		_ = c.hardClose()
	}
	p.mu.Lock()
	rrs := make([]*realmRuntime, 0, len(gen.realms))
	for _, rr := range gen.realms {
		rrs = append(rrs, rr)
	}
	gen.realms = map[string]*realmRuntime{}
	p.mu.Unlock()
	for _, rr := range rrs {
		rr.stop()
	}
	p.joinLock.Lock()
	gen.rt.Close()
	p.joinLock.Unlock()
	p.wg.Wait()
	p.log.Info("platform down")
}

// reconcileLocked brings the router's realms in line with the provisioned
// realms that are not withheld. The caller holds p.ctl.
func (p *Platform) reconcileLocked() {
	var provisioned []realm.Info
	p.reg.Do(func(s *registry.State) { provisioned = s.Realms() })
	p.mu.Lock()
	gen := p.gen
	if gen == nil {
		p.mu.Unlock()
		return
	}
	var up []realm.Info
	var down []string
	keep := map[string]bool{}
	for _, ri := range provisioned {
		keep[ri.Name] = true
		if !p.withheld[ri.Name] && gen.realms[ri.Name] == nil {
			up = append(up, ri)
		}
	}
	for name := range gen.realms {
		if p.withheld[name] || !keep[name] {
			down = append(down, name)
		}
	}
	p.mu.Unlock()
	slices.Sort(down)
	for _, name := range down {
		p.realmDown(gen, name)
	}
	for _, ri := range up {
		p.realmUp(gen, ri)
	}
}

// reconcile is reconcileLocked for callers that do not hold p.ctl.
func (p *Platform) reconcile() {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.reconcileLocked()
}

// realmUp adds a realm to the router and starts its services.
func (p *Platform) realmUp(gen *generation, ri realm.Info) {
	if err := gen.rt.AddRealm(p.realmConfig(ri)); err != nil {
		p.log.Error("cannot add realm", "realm", ri.Name, "err", err)
		return
	}
	rr := p.startRealmRuntime(gen, ri)
	p.mu.Lock()
	gen.realms[ri.Name] = rr
	p.mu.Unlock()
	p.log.Info("realm up", "realm", ri.Name)
}

// realmDown stops a realm's services and removes the realm from the
// router; its sessions get GOODBYE wamp.close.system_shutdown.
func (p *Platform) realmDown(gen *generation, name string) {
	p.mu.Lock()
	rr := gen.realms[name]
	delete(gen.realms, name)
	p.mu.Unlock()
	rr.stop()
	p.joinLock.Lock()
	gen.rt.RemoveRealm(wamp.URI(name))
	p.joinLock.Unlock()
	p.log.Info("realm down", "realm", name)
}

func (p *Platform) realmConfig(ri realm.Info) *router.RealmConfig {
	return &router.RealmConfig{
		URI:            wamp.URI(ri.Name),
		AllowDisclose:  true,
		Authenticators: []auth.Authenticator{&craAuthenticator{p: p, realm: ri}},
		Authorizer:     &authorizer{p: p, realm: ri},
		MetaStrict:     true,
		// Network subscribers get EVENT details of their own (events.go).
		PublishFilterFactory: p.publishFilterFactory,
	}
}

// nexusLogger sends what nexus logs to slog at debug level.
type nexusLogger struct{ l *slog.Logger }

func (n nexusLogger) enabled() bool { return n.l.Enabled(context.Background(), slog.LevelDebug) }

// Print logs like fmt.Print.
func (n nexusLogger) Print(v ...any) {
	if n.enabled() {
		n.l.Debug(fmt.Sprint(v...), "component", "nexus")
	}
}

// Println logs like fmt.Println, without the newline.
func (n nexusLogger) Println(v ...any) {
	if n.enabled() {
		s := fmt.Sprintln(v...)
		n.l.Debug(s[:len(s)-1], "component", "nexus")
	}
}

// Printf logs like fmt.Printf.
func (n nexusLogger) Printf(format string, v ...any) {
	if n.enabled() {
		n.l.Debug(fmt.Sprintf(format, v...), "component", "nexus")
	}
}
