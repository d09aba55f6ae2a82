// This file holds the URLs of objects: URL (permanent, composed from the
// catalog without a call), ShareURL (files.read.url) and UploadURL
// (files.write.url).

package files

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/flockgo/ironflock/internal/wire"
)

// URL returns the permanent URL of an object:
// <public base>/f/<sad_key>/<namespace>/<key>, with ?v=<version> when
// version is set (pass the object's ETag: browsers may then cache the
// answer for good). It is readable only by an authenticated requestor
// with READ access on the app's data backend, checked on every request,
// so it may be stored in a table column. It is "" where the deployment
// has no HTTP edge; read the object with Get then. URL sends nothing
// once the catalog is cached and does not check that the object exists.
// Honours Namespace.
func (s *Store) URL(ctx context.Context, key, version string, opts ...Option) (string, error) {
	set := settingsOf(opts)
	if err := checkKey("key", key); err != nil {
		return "", opError("files.URL", wire.FilesNamespaces, set.object(key), err)
	}
	cat, err := s.catalog(ctx)
	if err != nil {
		return "", opError("files.URL", wire.FilesNamespaces, set.object(key), err)
	}
	return objectURL(cat.PublicBaseURL, cat.SadKey, set.namespace, key, version), nil
}

// objectURL composes a permanent URL: the base without trailing "/", the
// key percent-encoded keeping "/" and the unreserved characters, the
// version escaped as encodeURIComponent does. An empty base gives "".
func objectURL(base string, sad int64, ns, key, version string) string {
	base = strings.TrimRight(base, "/")
	if base == "" {
		return ""
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	u := base + wire.FilesPermanentPath + strconv.FormatInt(sad, 10) + "/" + ns + "/" + escape(key, "/")
	if version != "" {
		u += "?" + wire.VersionParam + "=" + escape(version, "!*'()")
	}
	return u
}

// escape percent-encodes s with upper-case hex, keeping RFC 3986's
// unreserved characters and those in keep.
func escape(s, keep string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
			strings.IndexByte("-._~", c) >= 0 || strings.IndexByte(keep, c) >= 0 {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}

// Share is an expiring read URL of an object.
type Share struct {
	// URL is readable by anyone holding it, with no authorization, until
	// it expires: keep it out of the database and out of logs.
	URL string
	// ExpiresIn is its lifetime as the server granted it.
	ExpiresIn time.Duration
	// Size and ETag describe the object when the URL was made.
	Size int64
	ETag string
}

// ShareURL returns an expiring URL that anyone may read the object with,
// without authorization. The lifetime is ExpiresIn (default 15 minutes),
// clamped by the server; it needs direct transfers (NOT_SUPPORTED
// without) and an existing object. Honours Namespace and ExpiresIn.
func (s *Store) ShareURL(ctx context.Context, key string, opts ...Option) (*Share, error) {
	set := settingsOf(opts)
	p, err := s.readURL(ctx, key, set, set.ttl(DefaultShareTTL))
	if err != nil {
		return nil, opError("files.ShareURL", wire.FilesReadURL, set.object(key), err)
	}
	return &Share{
		URL:       stringField(p, wire.FieldURL),
		ExpiresIn: time.Duration(intField(p, wire.FieldExpiresIn)) * time.Second,
		Size:      intField(p, wire.FieldSize),
		ETag:      stringField(p, wire.FieldETag),
	}, nil
}

// readURL mints a read URL: {url, method, expires_in, size, etag}.
func (s *Store) readURL(ctx context.Context, key string, set *callSettings, ttl time.Duration) (map[string]any, error) {
	if err := checkKey("key", key); err != nil {
		return nil, err
	}
	return s.call(ctx, wire.FilesReadURL, map[string]any{
		wire.FieldNamespace: set.namespace, wire.FieldKey: key, wire.FieldExpiresIn: seconds(ttl),
	})
}

// Upload is an expiring URL that uploads the object. It is not used up by
// an upload: until it expires it accepts any number of them, each checked
// against MaxBytes, the namespace's rules and the quota at that moment,
// each replacing the object (the last one wins) and publishing
// files.events. There is no way to revoke it before it expires; mint it
// with a short ExpiresIn when one upload is all it is for.
type Upload struct {
	// URL is a bearer secret until it expires: keep it out of logs.
	URL string
	// Method is the HTTP method to use (PUT).
	Method string
	// Headers must be sent exactly as given (a "Host" entry sets the
	// request's host); the request must carry a Content-Length (no chunked
	// encoding).
	Headers map[string]string
	// ExpiresIn is its lifetime as the server granted it.
	ExpiresIn time.Duration
	// MaxBytes is the largest body the URL accepts.
	MaxBytes int64
}

// UploadURL returns an expiring URL another program may upload the
// object to with a plain HTTP request, without the SDK, as often as it
// likes until the URL expires (see Upload). The lifetime is ExpiresIn
// (default 1 hour), clamped by the server to 1 minute … 1 hour. Honours
// Namespace, ContentType (sent in Headers and checked against the
// namespace), Size (checked against the namespace's limit and the quota
// at once) and ExpiresIn.
func (s *Store) UploadURL(ctx context.Context, key string, opts ...Option) (*Upload, error) {
	set := settingsOf(opts)
	if set.sizeSet && set.size < 0 {
		return nil, opError("files.UploadURL", wire.FilesWriteURL, set.object(key), invalidArg("negative size %d", set.size))
	}
	p, err := s.writeURL(ctx, key, set, set.ttl(DefaultUploadTTL))
	if err != nil {
		return nil, opError("files.UploadURL", wire.FilesWriteURL, set.object(key), err)
	}
	return decodeUpload(p), nil
}

// decodeUpload reads the answer of files.write.url.
func decodeUpload(p map[string]any) *Upload {
	up := &Upload{
		URL:       stringField(p, wire.FieldURL),
		Method:    stringField(p, wire.FieldMethod),
		Headers:   map[string]string{},
		ExpiresIn: time.Duration(intField(p, wire.FieldExpiresIn)) * time.Second,
		MaxBytes:  intField(p, wire.FieldMaxBytes),
	}
	if up.Method == "" {
		up.Method = http.MethodPut
	}
	h, _ := p[wire.FieldHeaders].(map[string]any)
	for k, v := range h {
		if v, ok := v.(string); ok {
			up.Headers[k] = v
		}
	}
	return up
}

// writeURL mints an upload URL: {url, method, headers, expires_in,
// max_bytes}.
func (s *Store) writeURL(ctx context.Context, key string, set *callSettings, ttl time.Duration) (map[string]any, error) {
	if err := checkKey("key", key); err != nil {
		return nil, err
	}
	req := map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key, wire.FieldExpiresIn: seconds(ttl)}
	if set.contentType != "" {
		req[wire.FieldContentType] = set.contentType
	}
	if set.sizeSet {
		req[wire.FieldSize] = set.size
	}
	return s.call(ctx, wire.FilesWriteURL, req)
}

// ttl is ExpiresIn, or def.
func (s *callSettings) ttl(def time.Duration) time.Duration {
	if s.expiresIn > 0 {
		return s.expiresIn
	}
	return def
}

// object names ns/key in errors; a key that is not valid UTF-8 is quoted.
func (s *callSettings) object(key string) string {
	if !utf8.ValidString(key) {
		key = strconv.Quote(key)
	}
	return s.namespace + "/" + key
}

// seconds is d in whole seconds, rounded up.
func seconds(d time.Duration) int64 { return int64((d + time.Second - 1) / time.Second) }
