// This file holds flockd's ops endpoints (docs/flockd.md, "Ops
// endpoints"): with -ops ADDR a listener of their own, apart from the
// platform's, serving /healthz, /readyz, /stats and /metrics (the
// production router's names). It listens before the platform starts, so
// that /readyz answers 503 until the configuration is provisioned and
// every backend attached. Off by default: a second port would collide
// between flockd processes on one machine, and the console shows the same
// counters.

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// opsFlags are the ops listener's command-line flags.
type opsFlags struct{ addr *string }

func addOpsFlags(fs *flag.FlagSet) opsFlags {
	return opsFlags{addr: fs.String("ops", "",
		"serve /healthz, /readyz, /stats and /metrics (Prometheus) on `address`, such as 127.0.0.1:9090 (default: off)")}
}

// opsServer serves the ops endpoints.
type opsServer struct {
	srv  *http.Server
	ln   net.Listener
	done chan struct{}
	// p is the platform once started; ready is set once the configuration
	// is provisioned.
	p       atomic.Pointer[platformtest.Platform]
	handler atomic.Pointer[http.Handler]
	ready   atomic.Bool
}

// start listens on the ops address; nil when -ops is not set.
func (f opsFlags) start(log *slog.Logger) (*opsServer, error) {
	if *f.addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", *f.addr)
	if err != nil {
		return nil, fmt.Errorf("ops listener: %w", err)
	}
	o := &opsServer{ln: ln, done: make(chan struct{})}
	o.srv = &http.Server{Handler: o, ReadHeaderTimeout: 10 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	go func() {
		defer close(o.done)
		if err := o.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("ops listener stopped", "err", err)
		}
	}()
	url := "http://" + ln.Addr().String()
	log.Info("ops endpoints listening", "healthz", url+platformtest.OpsHealthPath, "readyz", url+platformtest.OpsReadyPath,
		"stats", url+platformtest.OpsStatsPath, "metrics", url+platformtest.OpsMetricsPath)
	if !loopback(ln.Addr().String()) {
		log.Warn("the ops endpoints check no token and listen on more than loopback: keep the address private", "addr", ln.Addr().String())
	}
	return o, nil
}

// started hands the started platform to the endpoints; nil-safe.
func (o *opsServer) started(p *platformtest.Platform) {
	if o == nil {
		return
	}
	h := p.OpsHandler()
	o.handler.Store(&h)
	o.p.Store(p)
}

// provisioned says that the configuration is provisioned: /readyz now
// answers as the platform's readiness says; nil-safe.
func (o *opsServer) provisioned() {
	if o != nil {
		o.ready.Store(true)
	}
}

// ServeHTTP answers /healthz at once and, until the platform started and
// was provisioned, /readyz with 503 (and /stats and /metrics with 503
// until it started); then the platform's ops handler answers.
func (o *opsServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := o.handler.Load()
	switch {
	case r.URL.Path == platformtest.OpsHealthPath && h == nil:
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
	case r.URL.Path == platformtest.OpsReadyPath && !o.ready.Load(),
		h == nil && (r.URL.Path == platformtest.OpsStatsPath || r.URL.Path == platformtest.OpsMetricsPath):
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = io.WriteString(w, "not ready: flockd is starting (the configuration is not provisioned yet)\n")
	case h == nil:
		http.NotFound(w, r)
	default:
		(*h).ServeHTTP(w, r)
	}
}

// close stops the ops listener; nil-safe.
func (o *opsServer) close() {
	if o == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = o.srv.Shutdown(ctx)
	_ = o.srv.Close()
	<-o.done
}
