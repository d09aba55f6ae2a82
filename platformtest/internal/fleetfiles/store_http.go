// This file serves the object store on the platform's HTTP server
// (docs/fake.md, the file service):
//
//	GET|HEAD /store/if-<S>-<sad_key>/<namespace>/<key>?X-Amz-…  read URL
//	PUT      /store/if-<S>-<sad_key>/<namespace>/<key>?X-Amz-…  upload URL
//
// Every request is checked: the Date header, when sent, against the
// platform clock (more than 15 minutes apart: 403 RequestTimeTooSkewed;
// Settings.ClockSkew shifts the devices' clocks), then the signature
// (403 SignatureDoesNotMatch; it covers the method, the path, every query
// parameter and an upload's Content-Type) and the expiry on the platform
// clock (403 AccessDenied). An upload needs Content-Length (411
// MissingContentLength; chunked bodies are refused as S3 refuses them),
// at most X-If-Max-Bytes (400 EntityTooLarge), and room in the budget
// (403 QuotaExceeded); its body streams into a blob, so large objects
// never sit in memory. Reads support Range (206, 416) and conditional
// requests, and answer Content-Type, ETag (quoted), Last-Modified,
// Accept-Ranges and a Content-Disposition: attachment for every type but
// raster images and PDF, also when the signed disposition asks for
// inline (serve_object.go). Every answer carries
// Content-Security-Policy: sandbox and X-Content-Type-Options: nosniff.
// Errors are S3's XML bodies. While the store is unreachable
// (Settings.Unreachable) every connection is closed before an answer.

package fleetfiles

import (
	"encoding/xml"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// s3Error is an error answer of the object store.
type s3Error struct {
	status  int
	code    string
	message string
}

func (e *s3Error) Error() string { return e.code + ": " + e.message }

// write sends the error as S3 does: an XML body.
func (e *s3Error) write(w http.ResponseWriter) {
	body, _ := xml.Marshal(struct {
		XMLName xml.Name `xml:"Error"`
		Code    string   `xml:"Code"`
		Message string   `xml:"Message"`
	}{Code: e.code, Message: e.message})
	w.Header().Set("Content-Type", "application/xml")
	w.WriteHeader(e.status)
	_, _ = w.Write(append([]byte(xml.Header), body...))
}

func (s *Service) serveStore(w http.ResponseWriter, r *http.Request) {
	if s.cfg.Absent {
		http.NotFound(w, r)
		return
	}
	inertHeaders(w.Header())
	set := s.settings()
	if set.Unreachable {
		if hj, ok := w.(http.Hijacker); ok {
			if conn, _, err := hj.Hijack(); err == nil {
				_ = conn.Close()
				return
			}
		}
		panic(http.ErrAbortHandler) // closes the connection without an answer
	}
	now := s.cfg.Clock.Now()
	b, ns, key, err := s.checkPresigned(r, now, set.ClockSkew)
	if err != nil {
		err.write(w)
		return
	}
	b.sweep(now)
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		o, content, f := b.open(ns, key)
		if f != nil {
			(&s3Error{http.StatusNotFound, "NoSuchKey", "The specified key does not exist."}).write(w)
			return
		}
		defer content.Close()
		serveObject(countingWriter{w, &s.met.read}, r, o, content, wantsDownload(r.URL.Query().Get(qDisposition)))
	case http.MethodPut:
		r.Body = paced(w, r, b.svc.cfg.UploadRate)
		o, err := b.upload(r, ns, key, now)
		if err != nil {
			err.write(w)
			return
		}
		w.Header().Set("ETag", `"`+o.MD5+`"`)
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT")
		(&s3Error{http.StatusMethodNotAllowed, "MethodNotAllowed", "The specified method is not allowed against this resource."}).write(w)
	}
}

// checkPresigned checks a request against its presigned URL and returns
// its bucket, namespace and key.
func (s *Service) checkPresigned(r *http.Request, now time.Time, skew time.Duration) (*bucket, string, string, *s3Error) {
	denied := func(code, msg string) *s3Error { return &s3Error{http.StatusForbidden, code, msg} }
	if d := r.Header.Get("Date"); d != "" {
		if t, err := http.ParseTime(d); err == nil {
			if diff := t.Add(skew).Sub(now).Abs(); diff > wire.MaxClockSkew {
				return nil, "", "", denied(wire.ClockSkewCode, "The difference between the request time and the current time is too large.")
			}
		}
	}
	b, ns, key := s.storeTarget(r.URL.Path)
	if b == nil {
		return nil, "", "", &s3Error{http.StatusNotFound, "NoSuchBucket", "The specified bucket does not exist."}
	}
	q := r.URL.Query()
	if q.Get(qAlgorithm) != algorithm || q.Get(qSignature) == "" {
		return nil, "", "", denied("AccessDenied", "Only presigned requests are accepted.")
	}
	ct := ""
	if q.Get(qSignedHeaders) == "content-type" {
		ct = r.Header.Get("Content-Type")
	}
	method := r.Method
	if method == http.MethodHead {
		method = http.MethodGet
	}
	want := s.sign(method, r.URL.Path, q, ct)
	if !hmacEqual(want, q.Get(qSignature)) {
		return nil, "", "", denied("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided.")
	}
	date, err1 := time.Parse(amzDate, q.Get(qDate))
	secs, err2 := strconv.ParseInt(q.Get(qExpires), 10, 64)
	if err := errors.Join(err1, err2); err != nil || now.After(date.Add(time.Duration(secs)*time.Second)) {
		return nil, "", "", denied("AccessDenied", "Request has expired.")
	}
	return b, ns, key, nil
}

// storeTarget splits /store/<bucket>/<ns>/<key>; b is nil when the bucket
// does not exist.
func (s *Service) storeTarget(p string) (b *bucket, ns, key string) {
	rest := strings.TrimPrefix(p, wire.ObjectStorePath)
	name, rest, _ := strings.Cut(rest, "/")
	ns, key, _ = strings.Cut(rest, "/")
	swarm, sad, ok := strings.Cut(strings.TrimPrefix(name, "if-"), "-")
	n, err := strconv.ParseInt(sad, 10, 64)
	if !ok || err != nil || key == "" {
		return nil, "", ""
	}
	if b = s.bucketBySad(n); b == nil || strconv.Itoa(b.ri.Swarm) != swarm {
		return nil, "", ""
	}
	return b, ns, key
}

// upload stores the body of a presigned PUT as ns/key.
func (b *bucket) upload(r *http.Request, ns, key string, now time.Time) (store.Object, *s3Error) {
	if r.Header.Get("Content-Length") == "" || r.ContentLength < 0 {
		return store.Object{}, &s3Error{http.StatusLengthRequired, "MissingContentLength", "You must provide the Content-Length HTTP header."}
	}
	size := r.ContentLength
	if limit, err := strconv.ParseInt(r.URL.Query().Get(qMaxBytes), 10, 64); err != nil || size > limit {
		return store.Object{}, &s3Error{http.StatusBadRequest, "EntityTooLarge", "Your proposed upload exceeds the maximum allowed size."}
	}
	n, f := b.namespace(ns)
	if f == nil {
		f = checkFits(n, size, r.Header.Get("Content-Type"))
	}
	if f == nil {
		f = b.checkQuota(ns, key, size)
	}
	if f != nil {
		return store.Object{}, storeRefusal(f)
	}
	bw, f := b.newContent(size)
	if f != nil {
		return store.Object{}, storeFailed(f)
	}
	got, err := bw.ReadFrom(r.Body)
	switch {
	case tooSlow(err):
		bw.Abort()
		return store.Object{}, errTooSlow
	case errors.Is(err, store.ErrFull):
		bw.Abort()
		return store.Object{}, storeFailed(storageFailure("storing the object", err))
	case err != nil || got != size:
		bw.Abort()
		return store.Object{}, &s3Error{http.StatusBadRequest, "IncompleteBody", "You did not provide the number of bytes specified by the Content-Length HTTP header."}
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		ct = defaultContentType
	}
	o, f := b.commit(ns, key, bw, ct, now)
	if f != nil {
		return store.Object{}, storeRefusal(f)
	}
	return o, nil
}

// storeFailed is the object store's answer to a failure of its storage:
// 507 Insufficient Storage with MinIO's XMinioStorageFull for a full disk
// (what a self-hosted S3 store answers), 500 InternalError otherwise. The
// SDK reports either as INTERNAL, quoting the message.
func storeFailed(f *failure) *s3Error {
	if strings.Contains(f.reason, storageFullReason) {
		return &s3Error{http.StatusInsufficientStorage, "XMinioStorageFull", f.reason}
	}
	return &s3Error{http.StatusInternalServerError, "InternalError", f.reason}
}

// storeRefusal is the object store's answer to a refusal of the file
// service's rules.
func storeRefusal(f *failure) *s3Error {
	switch f.code {
	case wire.FileQuotaExceeded:
		return &s3Error{http.StatusForbidden, wire.QuotaExceededCode, f.reason}
	case wire.FileObjectTooLarge:
		return &s3Error{http.StatusBadRequest, "EntityTooLarge", f.reason}
	case wire.FileNoSuchNamespace:
		return &s3Error{http.StatusNotFound, "NoSuchKey", f.reason}
	case wire.FileInternal:
		return storeFailed(f)
	default:
		return &s3Error{http.StatusForbidden, "AccessDenied", f.reason}
	}
}
