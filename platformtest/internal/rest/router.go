// This file holds the router of the management REST API (docs/fake.md §9)
// on the platform's HTTP server. It serves
//
//	/v1/platform/...    every route of the API (the other files of this package)
//	/v1/ironflock/...   the same routes (the real platform's documented prefix)
//	/v1/flockd/...      flockd's own routes, not the platform's (flockd_tools.go)
//
// and answers, in JSON like every error of the API: 401 without a known
// bearer token (only GET /openapi.json needs none), 404 for an unknown
// path, 405 with Allow for a known path with another method, and a 500 for
// a panic of a handler (a bug of the fake, logged at error level).

package rest

import (
	"context"
	"net/http"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Prefix is the path prefix of the management API; AliasPrefix serves the
// same routes.
const (
	Prefix      = "/v1/platform"
	AliasPrefix = "/v1/ironflock"
)

// restCall is one request to a route of the API.
type restCall struct {
	w http.ResponseWriter // for response headers only; the adapter writes the answer
	r *http.Request
	u *registry.User // the authenticated user
	// Set while the handler runs under the registry's lock (API.read).
	st     *registry.State
	online map[int]bool // keys of the devices with a joined session
}

// restFunc handles a route: it returns the status and the body of a
// success, or an error.
type restFunc func(c *restCall) (status int, body any, err *apiError)

type userKey struct{}

// Routes returns the route patterns the API serves (after its prefix:
// Prefix and AliasPrefix, or FlockdPrefix for flockd's own routes), in the
// order they are registered.
func Routes() []string {
	var served []string
	collect := func(pattern string, _ restFunc) { served = append(served, pattern) }
	api := &API{}
	api.routeDevices(collect)
	api.routeDeviceApps(collect)
	api.routeApps(collect)
	api.routeReleases(collect)
	api.routeGroups(collect)
	api.routeFlockd(collect) // under FlockdPrefix (flockd_tools.go)
	return append(served, "GET "+openAPIPath)
}

// Mount registers the API on mux under Prefix and AliasPrefix, and
// flockd's own routes under FlockdPrefix.
func (api *API) Mount(mux *http.ServeMux) {
	routes := http.NewServeMux()
	route := func(pattern string, f restFunc) { routes.HandleFunc(pattern, serveRoute(f)) }
	api.routeDevices(route)
	api.routeDeviceApps(route)
	api.routeApps(route)
	api.routeReleases(route)
	api.routeGroups(route)
	routes.HandleFunc("GET "+openAPIPath, serveOpenAPI)
	for _, prefix := range []string{Prefix, AliasPrefix} {
		h := api.restEntry(prefix, routes)
		mux.Handle(prefix+"/", h)
		mux.Handle(prefix, h)
	}
	api.mountFlockd(mux)
}

// serveRoute adapts a route's handler: it answers with its success or its
// error.
func serveRoute(f restFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, _ := r.Context().Value(userKey{}).(*registry.User)
		status, body, err := f(&restCall{w: w, r: r, u: u})
		if err != nil {
			writeError(w, err)
			return
		}
		writeJSON(w, status, body)
	}
}

// restEntry strips prefix, recovers panics, authenticates and dispatches
// to routes, answering unknown routes and wrong methods itself.
func (api *API) restEntry(prefix string, routes *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tw := &trackingWriter{ResponseWriter: w}
		defer api.recoverREST(tw, r)
		r2 := stripPrefix(r, prefix)
		if r2.URL.Path != openAPIPath {
			u, err := api.authenticate(r2)
			if err != nil {
				tw.Header().Set("WWW-Authenticate", `Bearer realm="ironflock"`)
				writeError(tw, err)
				return
			}
			r2 = r2.WithContext(context.WithValue(r2.Context(), userKey{}, u))
		}
		if _, pattern := routes.Handler(r2); pattern == "" {
			restNoRoute(tw, r2, routes, r.URL.Path)
			return
		}
		routes.ServeHTTP(tw, r2)
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
func restNoRoute(w http.ResponseWriter, r *http.Request, routes *http.ServeMux, path string) {
	h, _ := routes.Handler(r)
	probe := &probeWriter{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		writeError(w, errorf(http.StatusMethodNotAllowed, wire.CodeMethodNotAllowed,
			"%s is not allowed on %s; allowed: %s", r.Method, path, probe.header.Get("Allow")))
		return
	}
	writeError(w, notFound("no route %s %s", r.Method, path))
}

// recoverREST turns a handler's panic into a 500: the last resort, as bad
// input must never cause one.
func (api *API) recoverREST(w *trackingWriter, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	api.log.Error("management API handler panicked", "method", r.Method, "path", r.URL.Path, "panic", v)
	if !w.wrote {
		writeError(w, errorf(http.StatusInternalServerError, wire.CodeInternal, "internal error of the fake platform: %v", v))
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
