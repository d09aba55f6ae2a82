// This file holds the options: StoreOption for New, Option for single
// calls, and the defaults.

package files

import (
	"net/http"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// StoreOption configures a Store in New.
type StoreOption func(*storeSettings)

type storeSettings struct {
	http  *http.Client
	hooks []HookTransfer
}

// WithHTTPClient sets the HTTP client of direct transfers. By default the
// Store has its own, whose idle connections are closed when the client
// stops; a client given here is left alone. It must not follow redirects
// of PUT requests nor add a timeout shorter than the largest transfer.
func WithHTTPClient(hc *http.Client) StoreOption {
	return func(s *storeSettings) {
		if hc != nil {
			s.http = hc
		}
	}
}

// Option changes one call. Each method's documentation says which options
// it honours; the others are ignored.
type Option func(*callSettings)

type callSettings struct {
	namespace   string
	contentType string
	progress    func(done, total int64)
	prefix      string
	delimiter   *string
	limit       int
	cursor      string
	toNamespace string
	detail      bool
	expiresIn   time.Duration
	size        int64
	sizeSet     bool
}

// Defaults of the calls.
const (
	// DefaultNamespace is the namespace of a call without Namespace.
	DefaultNamespace = wire.DefaultFileNamespace
	// DefaultShareTTL is the lifetime ShareURL asks for without ExpiresIn.
	DefaultShareTTL = wire.DefaultShareTTL
	// DefaultUploadTTL is the lifetime UploadURL asks for without
	// ExpiresIn.
	DefaultUploadTTL = wire.DefaultUploadTTL
	// MaxObjectBytes is the largest object: 5 GiB, a single direct upload
	// (multipart upload is not implemented).
	MaxObjectBytes = wire.PresignMaxBytes
)

func settingsOf(opts []Option) *callSettings {
	s := &callSettings{namespace: DefaultNamespace}
	for _, o := range opts {
		if o != nil {
			o(s)
		}
	}
	return s
}

// Namespace selects the namespace of the call (default "default"); every
// method honours it. "" means the default.
func Namespace(ns string) Option {
	return func(s *callSettings) {
		if ns == "" {
			ns = DefaultNamespace
		}
		s.namespace = ns
	}
}

// ContentType sets the content type of a Put, PutReader, PutFile or
// UploadURL; without it the server stores application/octet-stream.
func ContentType(ct string) Option { return func(s *callSettings) { s.contentType = ct } }

// Progress reports the bytes done and the total of a transfer to fn, on
// the calling goroutine, as they move: for direct transfers and ranged
// reads as each chunk passes; for inline ones once, when done. It is
// honoured by Put, PutReader, PutFile, Get, GetTo and GetToFile.
func Progress(fn func(done, total int64)) Option { return func(s *callSettings) { s.progress = fn } }

// Prefix restricts List and Iter to keys that start with p. A prefix
// ending in "/" is a folder: Iter handles it on the client side;
// List sends it as it is (fleetfiles v0.2.0 refuses it, the fake accepts
// it).
func Prefix(p string) Option { return func(s *callSettings) { s.prefix = p } }

// Delimiter groups the keys of a List page by d after the prefix, as
// folders: the groups come back as Page.Prefixes. Without it the server
// groups by "/"; "" lists flat. Iter always lists flat.
func Delimiter(d string) Option { return func(s *callSettings) { s.delimiter = &d } }

// Limit sets the page size of List and Iter (server default 200, at most
// 1000).
func Limit(n int) Option { return func(s *callSettings) { s.limit = n } }

// Cursor continues a List after the page that returned it. Iter ignores
// it.
func Cursor(c string) Option { return func(s *callSettings) { s.cursor = c } }

// ToNamespace makes Copy and Move put the copy into another namespace.
func ToNamespace(ns string) Option { return func(s *callSettings) { s.toNamespace = ns } }

// Detail makes Usage add the bytes of each namespace.
func Detail() Option { return func(s *callSettings) { s.detail = true } }

// ExpiresIn sets the lifetime of a ShareURL (default 15 minutes) or an
// UploadURL (default 1 hour); it is sent in whole seconds, rounded up, and
// the server clamps it.
func ExpiresIn(d time.Duration) Option { return func(s *callSettings) { s.expiresIn = d } }

// Size announces the size of the object an UploadURL will receive, so the
// server checks the namespace's limit and the quota at once and the URL
// accepts exactly that many bytes at most.
func Size(n int64) Option {
	return func(s *callSettings) { s.size, s.sizeSet = n, true }
}
