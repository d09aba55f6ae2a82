// This file holds the router lifecycle: a generation (one nexus router and
// one HTTP server, from Up to Down), the realms present in it (reconciled
// with the provisioned realms minus the withheld ones), the realm
// configuration, and the adapter that sends nexus logs to slog.

package router

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
	nexus "github.com/gammazero/nexus/v3/router"
	"github.com/gammazero/nexus/v3/router/auth"
	"github.com/gammazero/nexus/v3/wamp"
)

// generation is one run of the router and the HTTP server.
type generation struct {
	nx        nexus.Router
	srv       *http.Server
	serveDone chan struct{}
	realms    map[string]*realmRuntime // guarded by Router.mu
}

// upLocked starts a router and serves on ln (a new listener on rt.addr when
// ln is nil). The caller holds rt.ctl.
func (rt *Router) upLocked(ln net.Listener) error {
	if ln == nil {
		var err error
		if ln, err = net.Listen("tcp", rt.addr); err != nil {
			return fmt.Errorf("listen on %s: %w", rt.addr, err)
		}
	}
	nx, err := nexus.NewRouter(&nexus.Config{}, nexusLogger{l: rt.log, rt: rt})
	if err != nil {
		_ = ln.Close()
		return fmt.Errorf("start router: %w", err)
	}
	gen := &generation{
		nx: nx,
		srv: &http.Server{
			Handler:           rt.cfg.Handler,
			ReadHeaderTimeout: 10 * time.Second,
			ErrorLog:          slog.NewLogLogger(rt.log.Handler(), slog.LevelDebug),
		},
		serveDone: make(chan struct{}),
		realms:    map[string]*realmRuntime{},
	}
	rt.mu.Lock()
	rt.gen = gen
	rt.wg.Add(1)
	rt.mu.Unlock()
	rt.reconcileLocked() // realms and their services are up before the first client
	go func() {
		defer rt.wg.Done()
		defer close(gen.serveDone)
		_ = gen.srv.Serve(&trackingListener{Listener: ln, rt: rt})
	}()
	return nil
}

// downLocked stops listening, closes every connection abruptly, stops the
// realms' services and closes the router, then waits for the goroutines of
// the server and the connections. The caller holds rt.ctl.
func (rt *Router) downLocked() {
	rt.mu.Lock()
	gen := rt.gen
	rt.gen = nil
	rt.mu.Unlock()
	if gen == nil {
		return
	}
	_ = gen.srv.Close()
	<-gen.serveDone
	for _, c := range rt.trackedConns(false) {
		_ = c.hardClose()
	}
	rt.mu.Lock()
	rrs := make([]*realmRuntime, 0, len(gen.realms))
	for _, rr := range gen.realms {
		rrs = append(rrs, rr)
	}
	gen.realms = map[string]*realmRuntime{}
	rt.mu.Unlock()
	for _, rr := range rrs {
		rr.stop()
	}
	rt.joinLock.Lock()
	gen.nx.Close()
	rt.joinLock.Unlock()
	rt.wg.Wait()
	rt.log.Info("platform down")
}

// reconcileLocked brings the router's realms in line with the provisioned
// realms that are not withheld. The caller holds rt.ctl.
func (rt *Router) reconcileLocked() {
	var provisioned []realm.Info
	var version uint64
	rt.reg.View(func(s *registry.State) { provisioned, version = s.Realms(), rt.reg.RealmsVersion() })
	rt.mu.Lock()
	gen := rt.gen
	if gen == nil {
		rt.mu.Unlock()
		return
	}
	var up []realm.Info
	var down []string
	keep := map[string]bool{}
	for _, ri := range provisioned {
		keep[ri.Name] = true
		if !rt.withheld[ri.Name] && gen.realms[ri.Name] == nil {
			up = append(up, ri)
		}
	}
	for name := range gen.realms {
		if rt.withheld[name] || !keep[name] {
			down = append(down, name)
		}
	}
	rt.mu.Unlock()
	slices.Sort(down)
	for _, name := range down {
		rt.realmDown(gen, name)
	}
	all := true
	for _, ri := range up {
		all = rt.realmUp(gen, ri) && all
	}
	if all { // a realm that could not be added is tried again at the next call
		rt.reconciled.Store(version + 1)
	}
}

// realmUp adds a realm to the router and starts its services, and reports
// whether it could.
func (rt *Router) realmUp(gen *generation, ri realm.Info) bool {
	if err := gen.nx.AddRealm(rt.realmConfig(ri)); err != nil {
		rt.log.Error("cannot add realm", "realm", ri.Name, "err", err)
		return false
	}
	rr := rt.startRealmRuntime(gen, ri)
	rt.mu.Lock()
	gen.realms[ri.Name] = rr
	rt.mu.Unlock()
	rt.log.Info("realm up", "realm", ri.Name)
	return true
}

// realmDown stops a realm's services and removes the realm from the
// router; its sessions get GOODBYE wamp.close.system_shutdown.
func (rt *Router) realmDown(gen *generation, name string) {
	rt.mu.Lock()
	rr := gen.realms[name]
	delete(gen.realms, name)
	rt.mu.Unlock()
	rr.stop()
	rt.joinLock.Lock()
	gen.nx.RemoveRealm(wamp.URI(name))
	rt.joinLock.Unlock()
	rt.log.Info("realm down", "realm", name)
}

func (rt *Router) realmConfig(ri realm.Info) *nexus.RealmConfig {
	return &nexus.RealmConfig{
		URI:            wamp.URI(ri.Name),
		AllowDisclose:  true,
		Authenticators: []auth.Authenticator{&craAuthenticator{rt: rt, realm: ri}},
		Authorizer:     &authorizer{rt: rt, realm: ri},
		MetaStrict:     true,
		// The platform ends revoked readers with wamp.session.kill; apps may
		// not call wamp.* (authorize.go), so only its own sessions can.
		EnableMetaKill: true,
		// Network subscribers get EVENT details of their own (events.go).
		PublishFilterFactory: rt.publishFilterFactory,
	}
}

// nexusLogger sends what nexus logs to slog at debug level. The router's
// logger (rt set) also learns from it that nexus dropped a message for a
// link whose channel was full, and drops the link (lostMessage).
type nexusLogger struct {
	l  *slog.Logger
	rt *Router
}

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
	if n.rt != nil {
		lostMessage(format, v)
	}
	if n.enabled() {
		n.l.Debug(fmt.Sprintf(format, v...), "component", "nexus")
	}
}

// The formats of nexus v3.3.0's log lines for a message it dropped because
// the session's channel was full (broker.trySend, dealer.trySend and a
// RESULT to a caller), each with the message type and the session.
var droppedFormats = map[string]bool{
	"!!! Dropped %s to session %s: blocked": true,
	"!!! Dropped %s to caller %s: blocked":  true,
}

// lostMessage drops the link nexus could not hand a message to, when the
// log line says so.
func lostMessage(format string, v []any) {
	if !droppedFormats[format] || len(v) != 2 {
		return
	}
	sess, _ := v[1].(*wamp.Session)
	if sess == nil {
		return
	}
	if w, ok := sess.Peer.(*wsPeer); ok {
		w.lost(fmt.Sprint(v[0]))
	}
}
