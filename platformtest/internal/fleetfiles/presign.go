// This file mints presigned URLs (docs/wire.md §7.15) and checks them:
//
//	files.read.url   {namespace, key, expires_in} → {url, method: "GET",
//	                 expires_in, size, etag}
//	files.write.url  {namespace, key, expires_in, content_type?, size?} →
//	                 {url, method: "PUT", headers: {Content-Type},
//	                 expires_in, max_bytes}
//
// URLs are path-style on the platform's HTTP server,
// /store/if-<S>-<sad_key>/<namespace>/<key>, with a SigV4-shaped query:
// X-Amz-Algorithm, X-Amz-Credential, X-Amz-Date, X-Amz-Expires,
// X-Amz-SignedHeaders, X-Amz-Signature (HMAC-SHA256 with a key of the
// platform over the method, the path, every other query parameter and
// the signed headers' values). A read URL adds
// response-content-disposition (inline for a raster image or a PDF,
// attachment for anything else, with the key's last segment as
// filename); an upload URL signs its Content-Type and carries its
// X-If-Max-Bytes. Both are NOT_SUPPORTED while presigning is off; a read
// URL needs an existing object.
//
// TTLs: expires_in in whole seconds; a read URL defaults to 900 and is
// clamped to 60 s … the namespace's linkMaxTtl (15 minutes by default;
// 300 s for a consuming app); an upload URL defaults to 3600 and is
// clamped to 60 … 3600 s.

package fleetfiles

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Query parameters of a presigned URL.
const (
	qAlgorithm     = "X-Amz-Algorithm"
	qCredential    = "X-Amz-Credential"
	qDate          = "X-Amz-Date"
	qExpires       = "X-Amz-Expires"
	qSignedHeaders = "X-Amz-SignedHeaders"
	qSignature     = "X-Amz-Signature"
	qMaxBytes      = "X-If-Max-Bytes"
	qDisposition   = "response-content-disposition"
	algorithm      = "IF-HMAC-SHA256"
	amzDate        = "20060102T150405Z"
)

// TTL bounds of presigned URLs.
const (
	minTTL       = time.Minute
	maxUploadTTL = time.Hour
	maxReaderTTL = 5 * time.Minute
)

// ttl reads expires_in (whole seconds) with a default and clamps it.
func (c *call) ttl(def, lo, hi time.Duration) (time.Duration, *failure) {
	secs, f := c.req.int(wire.FieldExpiresIn, int64(def/time.Second))
	if f != nil {
		return 0, f
	}
	if secs > int64(hi/time.Second) {
		return hi, nil
	}
	return max(time.Duration(secs)*time.Second, lo), nil
}

func (c *call) serveReadURL() (map[string]any, *failure) {
	ns, key, f := c.target(accessRead)
	if f != nil {
		return nil, f
	}
	if f := c.b.svc.presignable(); f != nil {
		return nil, f
	}
	hi := ns.LinkMaxTTL
	if c.role == wire.RoleAppReader {
		hi = min(hi, maxReaderTTL)
	}
	ttl, f := c.ttl(wire.DefaultShareTTL, minTTL, hi)
	if f != nil {
		return nil, f
	}
	o, f := c.b.find(ns.Name, key)
	if f != nil {
		return nil, f
	}
	q := url.Values{qDisposition: {disposition(o.ContentType, key, false)}}
	return map[string]any{
		wire.FieldURL:       c.b.presign(http.MethodGet, ns.Name, key, c.now, ttl, q, ""),
		wire.FieldMethod:    http.MethodGet,
		wire.FieldExpiresIn: int64(ttl / time.Second),
		wire.FieldSize:      o.Size,
		wire.FieldETag:      o.MD5,
	}, nil
}

func (c *call) serveWriteURL() (map[string]any, *failure) {
	ns, key, f := c.target(accessWrite)
	if f != nil {
		return nil, f
	}
	if f := c.b.svc.presignable(); f != nil {
		return nil, f
	}
	ttl, f := c.ttl(wire.DefaultUploadTTL, minTTL, maxUploadTTL)
	if f != nil {
		return nil, f
	}
	ct, f := c.contentType()
	if f != nil {
		return nil, f
	}
	maxBytes := min(ns.MaxObjectBytes, wire.PresignMaxBytes)
	if c.req.has(wire.FieldSize) {
		size, f := c.req.int(wire.FieldSize, 0)
		switch {
		case f != nil:
			return nil, f
		case size < 0:
			return nil, refuse(wire.FileInternal, "size must be ≥ 0, got %d", size)
		case size > wire.PresignMaxBytes:
			return nil, refuse(wire.FileTooLarge, "object of %d bytes is over the single-upload limit of %d bytes (5 GiB; multipart upload is not implemented)", size, wire.PresignMaxBytes)
		}
		if f := checkFits(ns, size, ct); f != nil {
			return nil, f
		}
		if f := c.b.checkQuota(ns.Name, key, size); f != nil {
			return nil, f
		}
		maxBytes = size
	} else if f := checkFits(ns, 0, ct); f != nil {
		return nil, f
	}
	q := url.Values{qMaxBytes: {strconv.FormatInt(maxBytes, 10)}}
	return map[string]any{
		wire.FieldURL:       c.b.presign(http.MethodPut, ns.Name, key, c.now, ttl, q, ct),
		wire.FieldMethod:    http.MethodPut,
		wire.FieldHeaders:   map[string]any{"Content-Type": ct},
		wire.FieldExpiresIn: int64(ttl / time.Second),
		wire.FieldMaxBytes:  maxBytes,
	}, nil
}

// presignable refuses while presigning is off.
func (s *Service) presignable() *failure {
	if !s.settings().Presign {
		return refuse(wire.FileNotSupported, "direct transfers (presigned URLs) are not available on this deployment")
	}
	return nil
}

// storePath is the object store's path of ns/key in b, unescaped.
func (b *bucket) storePath(ns, key string) string {
	return wire.ObjectStorePath + b.bucketName() + "/" + ns + "/" + key
}

// presign returns a presigned URL for method on ns/key, valid ttl from
// now; ct, when set, is a signed Content-Type.
func (b *bucket) presign(method, ns, key string, now time.Time, ttl time.Duration, q url.Values, ct string) string {
	p := b.storePath(ns, key)
	q.Set(qAlgorithm, algorithm)
	q.Set(qCredential, fmt.Sprintf("fleetfiles/%s/%s", now.UTC().Format("20060102"), b.ri.Name))
	q.Set(qDate, now.UTC().Format(amzDate))
	q.Set(qExpires, strconv.FormatInt(int64(ttl/time.Second), 10))
	if ct != "" {
		q.Set(qSignedHeaders, "content-type")
	} else {
		q.Set(qSignedHeaders, "")
	}
	q.Set(qSignature, b.svc.sign(method, p, q, ct))
	return strings.TrimRight(b.svc.cfg.BaseURL(), "/") + (&url.URL{Path: p}).EscapedPath() + "?" + q.Encode()
}

// sign computes the signature of a request: method, unescaped path, the
// query without the signature, the signed Content-Type.
func (s *Service) sign(method, p string, q url.Values, ct string) string {
	rest := url.Values{}
	for k, v := range q {
		if k != qSignature {
			rest[k] = v
		}
	}
	m := hmac.New(sha256.New, s.cfg.SignKey)
	fmt.Fprintf(m, "%s\n%s\n%s\ncontent-type:%s", method, p, rest.Encode(), ct)
	return hex.EncodeToString(m.Sum(nil))
}

// hmacEqual compares two signatures in constant time.
func hmacEqual(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }
