// This file holds the Service: the fake file service of a platform, its
// configuration and test settings, the buckets of its realms, and Attach,
// which registers on a realm (docs/wire.md §7.15):
//
//	files.read.namespaces  files.read.usage  (catalog.go)
//	files.read.list                          (list.go)
//	files.read.stat        files.read.get    (read.go)
//	files.write.put  files.write.delete  files.write.copy  (write.go)
//	files.read.url         files.write.url   (presign.go)
//
// and publishes on files.events (events.go). The HTTP side, the object
// store and permanent URLs, is in store_http.go and permanent_http.go.

package fleetfiles

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// DefaultQuotaBytes is the storage budget of a data backend whose project
// user set none: 1 GiB, the platform's DEV default.
const DefaultQuotaBytes int64 = 1 << 30

// Config is what the Service needs from the platform.
type Config struct {
	// Lookup returns a provisioned realm and its app's data template
	// (nil: no template). It fails for a realm that does not exist.
	Lookup func(realm string) (realm.Info, *template.DataTemplate, error)
	// Registry is the provisioned world: callers' installations and the
	// credentials of permanent URLs are checked against it.
	Registry *registry.Registry
	// Clock is the platform clock: expiry, retention, last_modified.
	Clock realm.Clock
	// BaseURL returns the platform's HTTP URL (http://127.0.0.1:PORT), the
	// base of presigned and permanent URLs.
	BaseURL func() string
	// Absent makes a deployment without a file service: nothing is
	// registered (calls answer wamp.error.no_such_procedure) and the HTTP
	// routes answer 404.
	Absent bool
	// Log receives the service's log lines.
	Log *slog.Logger
	// Objects keeps the objects (in memory, in a data folder: the
	// platform's choice). The service owns it: Close closes it.
	Objects store.Objects
	// UploadRate is the pace an upload's body must keep
	// (upload_rate.go); the zero value keeps none.
	UploadRate UploadRate
	// SignKey signs presigned URLs: the platform's store.PresignKey,
	// kept as long as the objects are; nil: a fresh one.
	SignKey []byte
	// Metrics receives the service's metrics (metrics.go); nil: none.
	Metrics *metrics.Registry
}

// Service is the fake file service: one bucket per realm, with its own
// state and lock, its objects in Config.Objects. It is a realm.Service,
// safe for concurrent use.
type Service struct {
	cfg Config

	mu      sync.Mutex // guards what follows
	set     Settings
	buckets map[string]*bucket // by realm name
	bySad   map[int64]*bucket

	met fileMetrics // (metrics.go)
}

// Settings are the deployment's knobs, which tests and flockd set.
type Settings struct {
	// InlineMaxBytes is the largest object transferred through the router.
	InlineMaxBytes int64
	// Presign says whether direct transfers (presigned URLs) exist.
	Presign bool
	// Unreachable makes the object store unreachable for devices: its
	// connections are closed before any answer.
	Unreachable bool
	// ClockSkew is added to the Date header of every object-store request
	// before it is compared with the platform clock: the devices' clocks
	// run that far off.
	ClockSkew time.Duration
	// Quotas are the project user's budgets by realm (0 = unlimited);
	// realms without an entry have DefaultQuotaBytes.
	Quotas map[string]int64
}

// New returns a Service with the default settings: 6 MiB inline limit,
// presigning on, the object store reachable.
func New(cfg Config) *Service {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	if len(cfg.SignKey) == 0 {
		cfg.SignKey = store.NewKey()
	}
	s := &Service{
		cfg:     cfg,
		set:     Settings{InlineMaxBytes: wire.DefaultInlineMaxBytes, Presign: true, Quotas: map[string]int64{}},
		buckets: map[string]*bucket{},
		bySad:   map[int64]*bucket{},
	}
	s.registerMetrics(cfg.Metrics)
	return s
}

// Name returns "fleetfiles".
func (*Service) Name() string { return "fleetfiles" }

// Update changes the settings under the service's lock.
func (s *Service) Update(f func(*Settings)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f(&s.set)
}

// settings returns a copy of the settings (Quotas shared: read it only
// through quota).
func (s *Service) settings() Settings {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.set
}

// quota returns the budget of a realm.
func (s *Service) quota(realmName string) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q, ok := s.set.Quotas[realmName]; ok {
		return q
	}
	return DefaultQuotaBytes
}

// Close closes the object store (in memory the objects are gone; a data
// folder keeps them).
func (s *Service) Close() {
	if err := s.cfg.Objects.Close(); err != nil {
		s.cfg.Log.Warn("files: object store not closed cleanly", "err", err)
	}
}

// bucket returns the bucket of a provisioned realm, creating it on first
// use.
func (s *Service) bucket(name string) (*bucket, error) {
	s.mu.Lock()
	b := s.buckets[name]
	s.mu.Unlock()
	if b != nil {
		return b, nil
	}
	ri, tpl, err := s.cfg.Lookup(name)
	if err != nil {
		return nil, err
	}
	sb, err := s.cfg.Objects.Bucket(context.Background(), name)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", name, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.buckets[name]; b != nil {
		return b, nil
	}
	b = &bucket{svc: s, ri: ri, tpl: tpl, sad: sb.Number(), store: sb}
	s.buckets[name] = b
	s.bySad[b.sad] = b
	return b, nil
}

// bucketBySad returns the bucket of a sad_key, or nil. It finds the realm
// of a sad_key the store handed out before a restart too.
func (s *Service) bucketBySad(sad int64) *bucket {
	s.mu.Lock()
	b := s.bySad[sad]
	s.mu.Unlock()
	if b != nil {
		return b
	}
	name, err := s.cfg.Objects.RealmOf(context.Background(), sad)
	if err != nil {
		return nil
	}
	b, _ = s.bucket(name)
	return b
}

// Bucket returns the bucket of a provisioned realm for the platform's
// test hooks.
func (s *Service) Bucket(realmName string) (*Bucket, error) {
	b, err := s.bucket(realmName)
	if err != nil {
		return nil, err
	}
	return &Bucket{b: b}, nil
}

// access is what a procedure does to a namespace.
type access int

const (
	accessRead access = iota
	accessWrite
	accessDelete
)

// procedure is one files.* procedure.
type procedure struct {
	uri   string
	serve func(c *call) (map[string]any, *failure)
}

// procedures are the procedures Attach registers.
var procedures = []procedure{
	{wire.FilesNamespaces, (*call).serveNamespaces},
	{wire.FilesUsage, (*call).serveUsage},
	{wire.FilesList, (*call).serveList},
	{wire.FilesStat, (*call).serveStat},
	{wire.FilesGet, (*call).serveGet},
	{wire.FilesPut, (*call).servePut},
	{wire.FilesDelete, (*call).serveDelete},
	{wire.FilesCopy, (*call).serveCopy},
	{wire.FilesReadURL, (*call).serveReadURL},
	{wire.FilesWriteURL, (*call).serveWriteURL},
}

// Attach registers the file service on h's realm and keeps h as the
// realm's current Host, through which uploads over HTTP publish their
// events. A deployment without a file service registers nothing.
func (s *Service) Attach(h *realm.Host) error {
	if s.cfg.Absent {
		return nil
	}
	b, err := s.bucket(h.Realm.Name)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.host = h
	b.mu.Unlock()
	var errs []error
	for _, p := range procedures {
		errs = append(errs, h.Register(p.uri, func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
			return b.invoke(p, inv)
		}, nil))
	}
	return errors.Join(errs...)
}

// invoke runs one call of a procedure: it reads the payload and the
// caller, applies retention, and answers with the envelope.
func (b *bucket) invoke(p procedure, inv *wamp.Invocation) client.InvokeResult {
	req, f := parseRequest(inv)
	if f != nil {
		return f.result()
	}
	c := &call{b: b, req: req, now: b.svc.cfg.Clock.Now()}
	c.role, _ = inv.Details["caller_authrole"].(string)
	c.serial, _ = inv.Details["caller_authid"].(string)
	b.sweep(c.now)
	payload, f := p.serve(c)
	if f != nil {
		return f.result()
	}
	return succeed(payload)
}

// Mount adds the object store and the permanent URLs to the platform's
// mux.
func (s *Service) Mount(mux *http.ServeMux) {
	mux.Handle(wire.ObjectStorePath, http.HandlerFunc(s.serveStore))
	mux.Handle(wire.FilesPermanentPath, http.HandlerFunc(s.servePermanent))
}
