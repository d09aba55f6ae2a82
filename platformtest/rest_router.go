// This file holds the router of the management REST API (PLATFORM.md §3)
// on the platform's HTTP server. It serves
//
//	/v1/platform/...    every route of the API (rest_*.go)
//	/v1/ironflock/...   the same routes (the real platform's documented prefix)
//
// and answers, in JSON like every error of the API: 401 without a known
// bearer token (only GET /openapi.json needs none), 404 for an unknown
// path, 405 with Allow for a known path with another method, and a 500 for
// a panic of a handler (a bug of the fake, logged at error level).

package platformtest

import (
	"context"
	"net/http"
	"strings"
)

// Path prefixes of the management API.
const (
	restPrefix      = "/v1/platform"
	restAliasPrefix = "/v1/ironflock"
)

// ManagementURL returns the base URL of the management REST API,
// http://127.0.0.1:PORT/v1/platform.
func (p *Platform) ManagementURL() string { return p.HTTPURL() + restPrefix }

// restCall is one request to a route of the API.
type restCall struct {
	w http.ResponseWriter // for response headers only; the adapter writes the answer
	r *http.Request
	u *user // the authenticated user
}

// restFunc handles a route: it returns the status and the body of a
// success, or an error.
type restFunc func(c *restCall) (status int, body any, err *apiError)

type userKey struct{}

// mountREST registers the API on the platform's mux.
func (p *Platform) mountREST() {
	api := http.NewServeMux()
	route := func(pattern string, f restFunc) {
		api.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
			u, _ := r.Context().Value(userKey{}).(*user)
			status, body, err := f(&restCall{w: w, r: r, u: u})
			if err != nil {
				writeError(w, err)
				return
			}
			writeJSON(w, status, body)
		})
	}
	p.routeDevices(route)
	p.routeDeviceApps(route)
	p.routeApps(route)
	p.routeReleases(route)
	p.routeGroups(route)
	api.HandleFunc("GET "+openAPIPath, serveOpenAPI)
	for _, prefix := range []string{restPrefix, restAliasPrefix} {
		h := p.restEntry(prefix, api)
		p.mux.Handle(prefix+"/", h)
		p.mux.Handle(prefix, h)
	}
}

// restEntry strips prefix, recovers panics, authenticates and dispatches
// to api, answering unknown routes and wrong methods itself.
func (p *Platform) restEntry(prefix string, api *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer p.recoverREST(tw, r)
		r2 := stripPrefix(r, prefix)
		if r2.URL.Path != openAPIPath {
			u, err := p.authenticate(r2)
			if err != nil {
				tw.Header().Set("WWW-Authenticate", `Bearer realm="ironflock"`)
				writeError(tw, err)
				return
			}
			r2 = r2.WithContext(context.WithValue(r2.Context(), userKey{}, u))
		}
		if _, pattern := api.Handler(r2); pattern == "" {
			restNoRoute(tw, r2, api, r.URL.Path)
			return
		}
		api.ServeHTTP(tw, r2)
	})
}

// stripPrefix returns a shallow copy of r whose path lacks prefix.
func stripPrefix(r *http.Request, prefix string) *http.Request {
	r2 := new(http.Request)
	*r2 = *r
	u := *r.URL
	u.Path = strings.TrimPrefix(u.Path, prefix)
	if u.Path == "" {
		u.Path = "/"
	}
	if u.RawPath != "" {
		u.RawPath = strings.TrimPrefix(u.RawPath, prefix)
	}
	r2.URL = &u
	return r2
}

// restNoRoute answers a request no route takes: 405 when the path exists
// with other methods, else 404. path is the path as requested.
func restNoRoute(w http.ResponseWriter, r *http.Request, api *http.ServeMux, path string) {
	h, _ := api.Handler(r)
	probe := &probeWriter{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		writeError(w, errorf(http.StatusMethodNotAllowed, codeMethodNotAllowed,
			"%s is not allowed on %s; allowed: %s", r.Method, path, probe.header.Get("Allow")))
		return
	}
	writeError(w, notFound("no route %s %s", r.Method, path))
}

// recoverREST turns a handler's panic into a 500: the last resort, as bad
// input must never cause one.
func (p *Platform) recoverREST(w *trackingWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	p.log.Error("management API handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v)
	if !w.wrote {
		writeError(w, errorf(http.StatusInternalServerError, codeInternal, "internal error of the fake platform: %v", v))
	}
}

// trackingWriter notes whether an answer was started.
type trackingWriter struct {
	http.ResponseWriter
	wrote bool
}

// WriteHeader sends the status line.
func (w *trackingWriter) WriteHeader(status int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(status)
}

// Write sends body bytes.
func (w *trackingWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// probeWriter records what the mux's own not-found or not-allowed handler
// would answer.
type probeWriter struct {
	header http.Header
	status int
}

// Header returns the recorded header.
func (w *probeWriter) Header() http.Header { return w.header }

// WriteHeader records the status.
func (w *probeWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

// Write discards the body.
func (w *probeWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return len(b), nil
}
