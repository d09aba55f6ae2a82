package rest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
)

// openAPIOperations returns the operations of openapi.json as "METHOD
// /path" (the patterns of Routes), those whose path names its own servers
// (flockd's) apart, after checking that the document names the two
// prefixes and flockd's paths FlockdPrefix.
func openAPIOperations(t *testing.T) (platform, flockd []string) {
	t.Helper()
	var doc struct {
		OpenAPI string `json:"openapi"`
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(OpenAPI(), &doc); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(doc.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1", doc.OpenAPI)
	}
	var servers []string
	for _, s := range doc.Servers {
		servers = append(servers, s.URL)
	}
	if !slices.Equal(servers, []string{Prefix, AliasPrefix}) {
		t.Errorf("servers %v, want %s and %s", servers, Prefix, AliasPrefix)
	}
	for path, item := range doc.Paths {
		own := false
		if raw, ok := item["servers"]; ok {
			var ss []struct {
				URL string `json:"url"`
			}
			if err := json.Unmarshal(raw, &ss); err != nil || len(ss) != 1 || ss[0].URL != FlockdPrefix {
				t.Errorf("%s: servers %s, want only %s", path, raw, FlockdPrefix)
			}
			own = true
		}
		for method := range item {
			switch method {
			case "get", "put", "post", "delete", "patch", "head", "options", "trace":
			default:
				continue
			}
			op := strings.ToUpper(method) + " " + path
			if own {
				flockd = append(flockd, op)
			} else {
				platform = append(platform, op)
			}
		}
	}
	slices.Sort(platform)
	slices.Sort(flockd)
	return platform, flockd
}

// paramPattern matches a path parameter of the document.
var paramPattern = regexp.MustCompile(`\{[a-z_]+\}`)

// TestRoutesAreDocumented: the routes the API serves and the operations
// openapi.json documents are the same, flockd's under its own prefix; a
// route added without its document entry (or the reverse) fails here.
func TestRoutesAreDocumented(t *testing.T) {
	platform, flockd := openAPIOperations(t)
	var served []string
	collect := func(pattern string, _ restFunc) { served = append(served, pattern) }
	var servedFlockd []string
	api := &API{}
	api.routeFlockd(func(pattern string, _ restFunc) { servedFlockd = append(servedFlockd, pattern) })
	api.routeDevices(collect)
	api.routeDeviceApps(collect)
	api.routeApps(collect)
	api.routeReleases(collect)
	api.routeGroups(collect)
	served = append(served, "GET "+openAPIPath)
	slices.Sort(served)
	slices.Sort(servedFlockd)
	if !slices.Equal(served, platform) {
		t.Errorf("served and documented routes differ:\nserved     %q\ndocumented %q", served, platform)
	}
	if !slices.Equal(servedFlockd, flockd) {
		t.Errorf("flockd's served and documented routes differ:\nserved     %q\ndocumented %q", servedFlockd, flockd)
	}
	// What is mounted answers every documented operation with its route
	// (an answer of its own, never the router's "no route" or 405).
	ta := newTestAPI(t)
	probe := func(prefix, op string) {
		method, path, _ := strings.Cut(op, " ")
		path = paramPattern.ReplaceAllString(path, "1")
		rec := ta.do(method, prefix+path, aliceToken, "{}")
		if rec.Code == http.StatusMethodNotAllowed || strings.Contains(rec.Body.String(), "no route") {
			t.Errorf("%s %s%s is documented but not served: %d %s", method, prefix, path, rec.Code, rec.Body)
		}
	}
	for _, op := range platform {
		probe(Prefix, op)
		probe(AliasPrefix, op)
	}
	for _, op := range flockd {
		probe(FlockdPrefix, op)
	}

	all := append(append([]string(nil), served...), servedFlockd...)
	slices.Sort(all)
	routes := Routes()
	slices.Sort(routes)
	if !slices.Equal(routes, all) {
		t.Errorf("Routes() %q, want every route mounted: %q", routes, all)
	}
}

// TestOpenAPIServed: the document is served without a token under both
// prefixes, byte for byte, and nothing else is done on its path, and OpenAPI hands out a copy a caller cannot
// change the served one through.
func TestOpenAPIServed(t *testing.T) {
	ta := newTestAPI(t)
	for _, prefix := range []string{Prefix, AliasPrefix} {
		rec := ta.do("GET", prefix+"/openapi.json", "", "")
		if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%s: %d %q", prefix, rec.Code, rec.Header().Get("Content-Type"))
		}
		if !bytes.Equal(rec.Body.Bytes(), openAPIDocument) || rec.Header().Get("Content-Length") != strconv.Itoa(len(openAPIDocument)) {
			t.Errorf("%s: %d bytes served (Content-Length %s), want the %d of openapi.json", prefix, rec.Body.Len(), rec.Header().Get("Content-Length"), len(openAPIDocument))
		}
	}
	// The document is read-only; with no token needed for its path, another
	// method is told so.
	rec := ta.do("POST", Prefix+"/openapi.json", "", "{}")
	wantError(t, rec, http.StatusMethodNotAllowed, wire.CodeMethodNotAllowed, "POST", "openapi.json")
	if rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("Allow %q, want GET, HEAD", rec.Header().Get("Allow"))
	}
	doc := OpenAPI()
	doc[0] = 'X'
	if OpenAPI()[0] == 'X' || openAPIDocument[0] == 'X' {
		t.Error("OpenAPI returned the served document itself")
	}
}

// TestAnswers: every answer is JSON with its length and nosniff, HTML
// special characters as they are; an error is exactly {"error", "code"};
// 204 has no body.
func TestAnswers(t *testing.T) {
	rec := httptest.NewRecorder()
	writeJSON(rec, http.StatusCreated, map[string]string{"name": "<b>&"})
	if rec.Code != http.StatusCreated || rec.Body.String() != `{"name":"<b>&"}`+"\n" {
		t.Errorf("answer %d %q", rec.Code, rec.Body)
	}
	h := rec.Header()
	if h.Get("Content-Type") != "application/json" || h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Content-Length") != strconv.Itoa(rec.Body.Len()) {
		t.Errorf("header %v", h)
	}

	rec = httptest.NewRecorder()
	writeError(rec, conflict(wire.CodeInUse, "app %d is installed", 7))
	if rec.Code != http.StatusConflict || rec.Body.String() != `{"error":"app 7 is installed","code":"IN_USE"}`+"\n" {
		t.Errorf("error answer %d %q", rec.Code, rec.Body)
	}

	rec = httptest.NewRecorder()
	writeJSON(rec, http.StatusNoContent, map[string]string{"ignored": "yes"})
	if rec.Code != http.StatusNoContent || rec.Body.Len() != 0 || rec.Header().Get("Content-Type") != "" {
		t.Errorf("204: %q %v", rec.Body, rec.Header())
	}

	rec = httptest.NewRecorder()
	writeJSON(rec, http.StatusOK, func() {}) // cannot be encoded: a bug of a view
	wantError(t, rec, http.StatusInternalServerError, wire.CodeInternal, "cannot encode the answer")

	for _, tc := range []struct {
		e      *apiError
		status int
		code   string
	}{
		{notFound("x"), http.StatusNotFound, wire.CodeNotFound},
		{forbidden("x"), http.StatusForbidden, wire.CodeForbidden},
		{invalid("x"), http.StatusUnprocessableEntity, wire.CodeValidation},
		{conflict(wire.CodeAlreadyExists, "x"), http.StatusConflict, wire.CodeAlreadyExists},
	} {
		if tc.e.status != tc.status || tc.e.code != tc.code || tc.e.Error() != "x" {
			t.Errorf("%+v, want %d %s", tc.e, tc.status, tc.code)
		}
	}
}
