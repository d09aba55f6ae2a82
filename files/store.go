// This file holds the Store: its construction, the calls of files.*
// procedures with their envelope, and the catalog (files.read.namespaces)
// with its cache.

package files

import (
	"context"
	"math"
	"net/http"
	"slices"
	"sync"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
)

// Store is the managed file storage of the app's data backend, reached
// through a started client. It is safe for concurrent use.
type Store struct {
	c     *client.Client
	hc    *http.Client
	hooks []HookTransfer // WithHooks

	mu  sync.Mutex
	cat *Catalog // nil until the first Catalog
}

// New returns the file store of the app c (not nil) belongs to. It sends
// nothing: the catalog is fetched by the first call that needs it. Direct
// transfers use the Store's own HTTP client (see WithHTTPClient), whose
// idle connections close when c stops. Make one Store per client and
// share it: each caches its catalog and registers a stop hook on c.
func New(c *client.Client, opts ...StoreOption) *Store {
	var set storeSettings
	for _, o := range opts {
		if o != nil {
			o(&set)
		}
	}
	s := &Store{c: c, hc: set.http, hooks: set.hooks}
	if s.hc == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.DisableCompression = true
		tr.WriteBufferSize = 256 << 10
		tr.ReadBufferSize = 256 << 10
		s.hc = &http.Client{Transport: tr}
		c.OnStop(func(context.Context) { tr.CloseIdleConnections() })
	}
	return s
}

// call calls a files.* procedure with payload (nil: no arguments) and
// returns the payload of a successful envelope.
func (s *Store) call(ctx context.Context, proc string, payload map[string]any) (map[string]any, error) {
	var args []any
	if payload != nil {
		args = []any{payload}
	}
	res, err := s.c.Call(ctx, proc, args...)
	if err != nil {
		return nil, routerError(err)
	}
	return decodeEnvelope(res.Args)
}

// decodeEnvelope reads {success: true, payload} (payload absent: {}) or
// {success: false, code, reason} (code absent: INTERNAL).
func decodeEnvelope(args []any) (map[string]any, error) {
	if len(args) == 0 {
		return nil, newError(CodeInternal, "the file service answered without an envelope")
	}
	env, ok := args[0].(map[string]any)
	if !ok {
		return nil, newError(CodeInternal, "the file service answered %T instead of an envelope", args[0])
	}
	if ok, _ := env[wire.FieldSuccess].(bool); ok {
		p, _ := env[wire.FieldPayload].(map[string]any)
		if p == nil {
			p = map[string]any{}
		}
		return p, nil
	}
	code, _ := env[wire.FieldCode].(string)
	if code == "" {
		code = CodeInternal
	}
	reason, _ := env[wire.FieldReason].(string)
	return nil, &Error{Code: code, Reason: reason}
}

// Catalog is what the file service offers the app: its namespaces, the
// limits and the budget.
type Catalog struct {
	// Namespaces are the namespaces the app may use, by name.
	Namespaces []NamespaceInfo
	// InlineMaxBytes is the largest object transferred through the router;
	// larger ones go directly to the object store. It can change without
	// a release of this package.
	InlineMaxBytes int64
	// ListMaxLimit is the largest page of a listing.
	ListMaxLimit int
	// QuotaBytes is the enforced budget, the project user's setting; 0 is
	// unlimited.
	QuotaBytes int64
	// SuggestedQuotaBytes is the budget the data template asks for; 0
	// without one.
	SuggestedQuotaBytes int64
	// SadKey is the data backend's key in permanent URLs.
	SadKey int64
	// PresignAvailable says whether direct transfers exist; without them
	// nothing above InlineMaxBytes can be written.
	PresignAvailable bool
	// PresignMaxBytes is the largest direct upload (5 GiB).
	PresignMaxBytes int64
	// PublicBaseURL is the base of permanent URLs; "" where the deployment
	// has no HTTP edge.
	PublicBaseURL string
	// CloudBaseURL is the base of permanent URLs through the cloud; often
	// "".
	CloudBaseURL string
}

// NamespaceInfo is one namespace of the catalog.
type NamespaceInfo struct {
	Name           string
	Description    string
	Private        bool     // not readable by consuming apps
	ContentTypes   []string // MIME globs: "type/subtype", "type/*", "*/*"
	MaxObjectBytes int64
}

// Catalog returns the catalog. It is fetched once and cached; call
// RefreshCatalog to fetch it again. Honours no option.
func (s *Store) Catalog(ctx context.Context) (*Catalog, error) {
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, opError("files.Catalog", wire.FilesNamespaces, "", err)
	}
	return cat.clone(), nil
}

// RefreshCatalog fetches the catalog again and caches it.
func (s *Store) RefreshCatalog(ctx context.Context) (*Catalog, error) {
	cat, err := s.fetchCatalog(ctx)
	if err != nil {
		return nil, opError("files.RefreshCatalog", wire.FilesNamespaces, "", err)
	}
	return cat.clone(), nil
}

// Namespaces returns the namespaces the app may use, from the cached
// catalog.
func (s *Store) Namespaces(ctx context.Context) ([]NamespaceInfo, error) {
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, opError("files.Namespaces", wire.FilesNamespaces, "", err)
	}
	return cat.clone().Namespaces, nil
}

// catalog returns the cached catalog, fetching it the first time. The
// result is shared: do not modify it.
func (s *Store) catalog(ctx context.Context) (*Catalog, error) {
	s.mu.Lock()
	cat := s.cat
	s.mu.Unlock()
	if cat != nil {
		return cat, nil
	}
	return s.fetchCatalog(ctx)
}

// fetchCatalog fetches the catalog and caches it.
func (s *Store) fetchCatalog(ctx context.Context) (*Catalog, error) {
	p, err := s.call(ctx, wire.FilesNamespaces, nil)
	if err != nil {
		return nil, err
	}
	cat := decodeCatalog(p)
	s.mu.Lock()
	s.cat = cat
	s.mu.Unlock()
	return cat, nil
}

func decodeCatalog(p map[string]any) *Catalog {
	cat := &Catalog{
		InlineMaxBytes:      intField(p, wire.FieldInlineMaxBytes),
		ListMaxLimit:        int(min(intField(p, wire.FieldListMaxLimit), math.MaxInt)),
		QuotaBytes:          intField(p, wire.FieldQuotaBytes),
		SuggestedQuotaBytes: intField(p, wire.FieldSuggestedQuotaBytes),
		SadKey:              intField(p, wire.FieldSadKey),
		PresignAvailable:    boolField(p, wire.FieldPresignAvailable),
		PresignMaxBytes:     intField(p, wire.FieldPresignMaxBytes),
		PublicBaseURL:       stringField(p, wire.FieldPublicBaseURL),
		CloudBaseURL:        stringField(p, wire.FieldCloudBaseURL),
	}
	if cat.PresignMaxBytes <= 0 {
		cat.PresignMaxBytes = MaxObjectBytes
	}
	list, _ := p[wire.FieldNamespaces].([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		ns := NamespaceInfo{
			Name:           stringField(m, wire.FieldName),
			Description:    stringField(m, wire.FieldDescription),
			Private:        boolField(m, wire.FieldPrivate),
			MaxObjectBytes: intField(m, wire.FieldMaxObjectBytes),
		}
		types, _ := m[wire.FieldContentTypes].([]any)
		for _, t := range types {
			if t, ok := t.(string); ok {
				ns.ContentTypes = append(ns.ContentTypes, t)
			}
		}
		cat.Namespaces = append(cat.Namespaces, ns)
	}
	return cat
}

// clone returns a deep copy.
func (c *Catalog) clone() *Catalog {
	cp := *c
	cp.Namespaces = slices.Clone(c.Namespaces)
	for i := range cp.Namespaces {
		cp.Namespaces[i].ContentTypes = slices.Clone(cp.Namespaces[i].ContentTypes)
	}
	return &cp
}
