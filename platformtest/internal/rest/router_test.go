package rest

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"mime"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// The tests of this file serve the API from a bare http.ServeMux over a
// registry, without a platform: what the router does with a request
// before and around a route's handler (prefixes, authentication, unknown
// routes, methods, panics) and what it tells the platform (Changed).

// fixedClock is a platform clock that never moves.
type fixedClock struct{ now time.Time }

func (c fixedClock) Now() time.Time                       { return c.now }
func (c fixedClock) After(time.Duration) <-chan time.Time { return nil }

// testAPI is the API of a registry with project alpha (swarm 1) holding
// device d1 (1), its admin alice and its viewer vic, mounted on a mux.
type testAPI struct {
	api     *API
	reg     *registry.Registry
	mux     *http.ServeMux
	logs    *bytes.Buffer
	changed int // calls of Config.Changed
}

const (
	aliceToken = "alice-token"
	vicToken   = "vic-token"
)

func newTestAPI(t *testing.T) *testAPI {
	t.Helper()
	clock := fixedClock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	ta := &testAPI{logs: &bytes.Buffer{}, mux: http.NewServeMux()}
	log := slog.New(slog.NewTextHandler(ta.logs, nil))
	ta.reg = registry.New(registry.Config{Clock: clock, Log: log, Build: time.Hour})
	err := ta.reg.Update(func(s *registry.State) error {
		pr, err := s.AddProject("alpha", registry.KeySpec(1))
		if err != nil {
			return err
		}
		if _, err := s.AddDevice("d1", registry.Spec{Key: 1, KeySet: true, Project: pr}); err != nil {
			return err
		}
		if _, err := s.AddUser("alice", aliceToken, map[*registry.Project]string{pr: wire.RoleAdmin}); err != nil {
			return err
		}
		_, err = s.AddUser("vic", vicToken, map[*registry.Project]string{pr: wire.RoleViewer})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	ta.api = New(Config{Registry: ta.reg, Clock: clock, Log: log,
		Online: func() map[int]bool { return nil }, Changed: func() { ta.changed++ }})
	ta.api.Mount(ta.mux)
	return ta
}

// do serves one request; token "" sends no Authorization header.
func (ta *testAPI) do(method, path, token, body string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	rec := httptest.NewRecorder()
	ta.mux.ServeHTTP(rec, req)
	return rec
}

// wantError fails the test unless rec is an error answer with status and
// code whose message contains every one of says.
func wantError(t *testing.T, rec *httptest.ResponseRecorder, status int, code string, says ...string) {
	t.Helper()
	if rec.Code != status {
		t.Errorf("status %d, want %d: %s", rec.Code, status, rec.Body)
	}
	if mt, _, _ := mime.ParseMediaType(rec.Header().Get("Content-Type")); mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", rec.Header().Get("Content-Type"))
	}
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", rec.Body, err)
	}
	msg, _ := m["error"].(string)
	if len(m) != 2 || msg == "" || m["code"] != code {
		t.Errorf("body %s: want exactly a non-empty \"error\" and \"code\" %q", rec.Body, code)
	}
	for _, s := range says {
		if !strings.Contains(msg, s) {
			t.Errorf("error %q does not say %q", msg, s)
		}
	}
}

// TestPrefixesServeTheSameRoutes: /v1/platform and /v1/ironflock answer a
// route alike; a prefix alone or a neighbour of it is no route.
func TestPrefixesServeTheSameRoutes(t *testing.T) {
	ta := newTestAPI(t)
	a := ta.do("GET", Prefix+"/devices/1", aliceToken, "")
	b := ta.do("GET", AliasPrefix+"/devices/1", aliceToken, "")
	if a.Code != http.StatusOK || b.Code != http.StatusOK || a.Body.String() != b.Body.String() {
		t.Fatalf("%s: %d %s; %s: %d %s", Prefix, a.Code, a.Body, AliasPrefix, b.Code, b.Body)
	}
	var d Device
	if err := json.Unmarshal(a.Body.Bytes(), &d); err != nil || d.DeviceKey != 1 || d.SwarmKey != 1 || d.Name != "d1" {
		t.Errorf("device %s (%v)", a.Body, err)
	}
	wantError(t, ta.do("GET", Prefix, aliceToken, ""), http.StatusNotFound, wire.CodeNotFound, "GET", Prefix)
	if rec := ta.do("GET", "/v1/platformer/devices", aliceToken, ""); rec.Code != http.StatusNotFound {
		t.Errorf("/v1/platformer/devices: %d, want 404 (no such mount)", rec.Code)
	}
}

// TestAuthentication: every route but the document needs a known bearer
// token; a refusal is 401 with a WWW-Authenticate challenge and runs no
// handler.
func TestAuthentication(t *testing.T) {
	ta := newTestAPI(t)
	for _, tc := range []struct {
		name, header, says string
	}{
		{"none", "", "missing Authorization"},
		{"basic", "Basic YWxpY2U6eA==", "must be Bearer"},
		{"bearer without token", "Bearer ", "must be Bearer"},
		{"unknown token", "Bearer nobody", "unknown bearer token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := httptest.NewRequest("POST", Prefix+"/apps", strings.NewReader(`{"name":"sneaky"}`))
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			rec := httptest.NewRecorder()
			ta.mux.ServeHTTP(rec, req)
			wantError(t, rec, http.StatusUnauthorized, wire.CodeUnauthenticated, tc.says)
			if got := rec.Header().Get("WWW-Authenticate"); got != `Bearer realm="ironflock"` {
				t.Errorf("WWW-Authenticate %q", got)
			}
		})
	}
	ta.reg.Do(func(s *registry.State) {
		if n := len(s.Apps()); n != 0 {
			t.Errorf("%d apps after refused creations, want 0", n)
		}
	})
	if ta.changed != 0 {
		t.Errorf("Changed called %d times for refused requests", ta.changed)
	}
	// The scheme is case-insensitive, as RFC 9110 has it.
	req := httptest.NewRequest("GET", Prefix+"/devices", nil)
	req.Header.Set("Authorization", "bearer "+aliceToken)
	rec := httptest.NewRecorder()
	ta.mux.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Errorf("lower-case bearer: %d %s", rec.Code, rec.Body)
	}
}

// TestUnknownRouteAndMethod: an unknown path is 404 naming it; a known
// path with another method is 405 with Allow, under every prefix.
func TestUnknownRouteAndMethod(t *testing.T) {
	ta := newTestAPI(t)
	for _, prefix := range []string{Prefix, AliasPrefix} {
		wantError(t, ta.do("GET", prefix+"/nosuch", aliceToken, ""), http.StatusNotFound, wire.CodeNotFound, "no route GET "+prefix+"/nosuch")
		rec := ta.do("PATCH", prefix+"/apps", aliceToken, "{}")
		wantError(t, rec, http.StatusMethodNotAllowed, wire.CodeMethodNotAllowed, "PATCH", prefix+"/apps")
		allow := rec.Header().Get("Allow")
		for _, m := range []string{"GET", "POST"} {
			if !strings.Contains(allow, m) {
				t.Errorf("%s/apps: Allow %q lacks %s", prefix, allow, m)
			}
		}
		if strings.Contains(allow, "DELETE") {
			t.Errorf("%s/apps: Allow %q offers DELETE, which only /apps/{app_key} takes", prefix, allow)
		}
	}
	// A key that is not one is no resource: 404, not 400.
	wantError(t, ta.do("GET", Prefix+"/devices/01", aliceToken, ""), http.StatusNotFound, wire.CodeNotFound, `device "01" not found`)
	wantError(t, ta.do("GET", Prefix+"/devices/-1", aliceToken, ""), http.StatusNotFound, wire.CodeNotFound)
}

// TestFlockdRoutesApart: flockd's own routes are served under
// FlockdPrefix only, and the platform's routes never there.
func TestFlockdRoutesApart(t *testing.T) {
	ta := newTestAPI(t)
	tool := "/devices/1/apps/1/agents/a/tools/t"
	for _, prefix := range []string{Prefix, AliasPrefix} {
		wantError(t, ta.do("POST", prefix+tool, aliceToken, "{}"), http.StatusNotFound, wire.CodeNotFound, "no route")
	}
	wantError(t, ta.do("GET", FlockdPrefix+"/devices", aliceToken, ""), http.StatusNotFound, wire.CodeNotFound, "no route GET "+FlockdPrefix+"/devices")
	// Under its prefix, the route is found: an unknown app is its own 404.
	rec := ta.do("POST", FlockdPrefix+tool, aliceToken, "{}")
	wantError(t, rec, http.StatusNotFound, wire.CodeNotFound)
	if strings.Contains(rec.Body.String(), "no route") {
		t.Errorf("%s%s is not routed: %s", FlockdPrefix, tool, rec.Body)
	}
	wantError(t, ta.do("POST", FlockdPrefix+tool, "", "{}"), http.StatusUnauthorized, wire.CodeUnauthenticated)
}

// TestChangedAfterWritesOnly: the platform hears of a successful change
// (its router may have realms to bring up), never of a read or a refusal.
func TestChangedAfterWritesOnly(t *testing.T) {
	ta := newTestAPI(t)
	if rec := ta.do("GET", Prefix+"/apps", aliceToken, ""); rec.Code != http.StatusOK || ta.changed != 0 {
		t.Fatalf("read: %d %s, Changed %d times", rec.Code, rec.Body, ta.changed)
	}
	if rec := ta.do("POST", Prefix+"/apps", aliceToken, `{"name":"mine"}`); rec.Code != http.StatusCreated || ta.changed != 1 {
		t.Fatalf("create: %d %s, Changed %d times", rec.Code, rec.Body, ta.changed)
	}
	wantError(t, ta.do("POST", Prefix+"/apps", aliceToken, `{"name":"mine"}`), http.StatusConflict, wire.CodeAlreadyExists, `"mine"`)
	if ta.changed != 1 {
		t.Errorf("Changed %d times after a refused change, want 1", ta.changed)
	}
}

// TestPanicIsInternalError: a handler's panic is answered 500 INTERNAL
// and logged at error level; an answer already started is left alone;
// http.ErrAbortHandler still aborts.
func TestPanicIsInternalError(t *testing.T) {
	ta := newTestAPI(t)
	routes := http.NewServeMux()
	routes.HandleFunc("GET /boom", func(http.ResponseWriter, *http.Request) { panic("boom") })
	routes.HandleFunc("GET /late", func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusAccepted)
		panic("late")
	})
	routes.HandleFunc("GET /abort", func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) })
	h := ta.api.restEntry(Prefix, routes)
	serve := func(path string) *httptest.ResponseRecorder {
		req := httptest.NewRequest("GET", Prefix+path, nil)
		req.Header.Set("Authorization", "Bearer "+aliceToken)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	wantError(t, serve("/boom"), http.StatusInternalServerError, wire.CodeInternal, "boom")
	if logs := ta.logs.String(); !strings.Contains(logs, "level=ERROR") || !strings.Contains(logs, "panic=boom") || !strings.Contains(logs, "path="+Prefix+"/boom") {
		t.Errorf("the panic is not logged at error level:\n%s", logs)
	}
	if rec := serve("/late"); rec.Code != http.StatusAccepted || rec.Body.Len() != 0 {
		t.Errorf("a panic after the answer started: %d %q, want the 202 alone", rec.Code, rec.Body)
	}
	func() {
		defer func() {
			if v := recover(); v != http.ErrAbortHandler {
				t.Errorf("recovered %v, want http.ErrAbortHandler passed on", v)
			}
		}()
		serve("/abort")
	}()
}

// TestStripPrefix: the routes see the path without the prefix, escaped
// form included, and the prefix alone as /.
func TestStripPrefix(t *testing.T) {
	for _, tc := range []struct{ path, want, wantRaw string }{
		{Prefix + "/devices/7", "/devices/7", ""},
		{Prefix, "/", ""},
		{Prefix + "/apps/a%2Fb", "/apps/a/b", "/apps/a%2Fb"},
	} {
		r := httptest.NewRequest("GET", tc.path, nil)
		r2 := stripPrefix(r, Prefix)
		if r2.URL.Path != tc.want || r2.URL.RawPath != tc.wantRaw {
			t.Errorf("%s: path %q raw %q, want %q %q", tc.path, r2.URL.Path, r2.URL.RawPath, tc.want, tc.wantRaw)
		}
		if r.URL.Path == r2.URL.Path && tc.path != tc.want {
			t.Errorf("%s: the request itself was changed", tc.path)
		}
	}
}
