package rest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/testhooks"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

// conformance sends requests and validates every request with a success
// answer, and every answer, against the OpenAPI document.
type conformance struct {
	t      *testing.T
	p      *platformtest.Platform
	doc    *openapi3.T
	router routers.Router
	flockd routers.Router          // flockd's paths: the legacy router ignores a path's own servers
	hits   map[string]map[int]bool // "METHOD /path/{x}" → statuses seen
	served *http.ServeMux          // the server's routes, without the prefix
}

func newConformance(t *testing.T, p *platformtest.Platform) *conformance {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(platformtest.OpenAPI())
	if err != nil {
		t.Fatalf("load the document: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("document version %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("the document is not valid: %v", err)
	}
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatalf("router: %v", err)
	}
	fdoc := *doc
	fdoc.Servers = openapi3.Servers{{URL: rest.FlockdPrefix}}
	flockd, err := legacy.NewRouter(&fdoc)
	if err != nil {
		t.Fatalf("flockd router: %v", err)
	}
	served := http.NewServeMux()
	for _, pattern := range rest.Routes() {
		served.HandleFunc(pattern, func(http.ResponseWriter, *http.Request) {})
	}
	return &conformance{t: t, p: p, doc: doc, router: router, flockd: flockd, hits: map[string]map[int]bool{}, served: served}
}

// do sends a request and validates it and its answer.
func (c *conformance) do(method, path, token, body string) worldtest.RESTAnswer {
	c.t.Helper()
	a := worldtest.RESTDo(c.t, c.p, method, path, token, body)
	c.validate(method, path, token, body, a)
	return a
}

// validate validates a request and its answer a.
func (c *conformance) validate(method, path, token, body string, a worldtest.RESTAnswer) {
	c.t.Helper()
	if !strings.HasPrefix(path, "/v1/") {
		path = rest.Prefix + path
	}
	req, err := http.NewRequest(method, path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.Status >= 500 {
		c.t.Errorf("%s %s: server error %d: %s", method, path, a.Status, a.Body)
	}
	router := c.router
	if prefixOf(path) == rest.FlockdPrefix {
		router = c.flockd
	}
	route, params, err := router.FindRoute(req)
	// flockd's paths are served under its prefix only (their servers), the
	// platform's under the platform's prefixes only.
	misplaced := err == nil && (route.PathItem.Servers != nil) != (router == c.flockd)
	if _, pattern := c.served.Handler(withoutPrefix(req, prefixOf(path))); pattern == "" || misplaced {
		// No route: an unknown path (404) or a wrong method (405), or no
		// token (401, which comes first), whose body must still be an
		// Error.
		if a.Status != http.StatusNotFound && a.Status != http.StatusMethodNotAllowed && a.Status != http.StatusUnauthorized {
			c.t.Errorf("%s %s: no route, answer %d", method, path, a.Status)
		}
		c.checkSchema("Error", a.Body, method+" "+path)
		return
	}
	if err != nil {
		c.t.Errorf("%s %s: a served route the document lacks: %v", method, path, err)
		return
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, IncludeResponseStatus: true, MultiError: true},
	}
	if a.Status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			c.t.Errorf("%s %s: the request the server accepted breaks the document: %v\n%s", method, path, err, body)
		}
	}
	out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: a.Status, Header: a.Header, Options: in.Options}
	out.SetBodyBytes(a.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		c.t.Errorf("%s %s: answer %d breaks the document: %v\n%s", method, path, a.Status, err, a.Body)
	}
	key := route.Method + " " + route.Path
	if c.hits[key] == nil {
		c.hits[key] = map[int]bool{}
	}
	c.hits[key][a.Status] = true
}

// ok sends a request, requires status want and decodes into out.
func (c *conformance) ok(method, path, token, body string, want int, out any) worldtest.RESTAnswer {
	c.t.Helper()
	a := c.do(method, path, token, body)
	if a.Status != want {
		c.t.Fatalf("%s %s: status %d, want %d: %s", method, path, a.Status, want, a.Body)
	}
	if out != nil {
		if err := json.Unmarshal(a.Body, out); err != nil {
			c.t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return a
}

func prefixOf(path string) string {
	switch {
	case strings.HasPrefix(path, rest.AliasPrefix):
		return rest.AliasPrefix
	case strings.HasPrefix(path, rest.FlockdPrefix):
		return rest.FlockdPrefix
	}
	return rest.Prefix
}

func (c *conformance) checkSchema(name string, body []byte, what string) {
	c.t.Helper()
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		c.t.Errorf("%s: body %q: %v", what, body, err)
		return
	}
	if err := c.doc.Components.Schemas[name].Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
		c.t.Errorf("%s: body breaks schema %s: %v\n%s", what, name, err, body)
	}
}

// whileWaiting sends a request that starts a build (of version) and
// waits for it. Once the request waits, it moves the platform clock by
// step, once when once is set (a timeout that must pass before the build
// ends), else until the request answers.
func (c *conformance) whileWaiting(step time.Duration, once bool, version, method, path, token, body string) worldtest.RESTAnswer {
	c.t.Helper()
	done := make(chan worldtest.RESTAnswer, 1)
	go func() { done <- worldtest.RESTSend(c.p, method, path, token, body) }()
	waiting := false
	for {
		select {
		case a := <-done:
			if a.Status == 0 {
				c.t.Fatalf("%s %s: %s", method, path, a.Body)
			}
			c.validate(method, path, token, body, a)
			return a
		case <-time.After(time.Millisecond):
			switch {
			case !waiting:
				waiting = buildWaited(c.p, version)
				if waiting {
					c.p.Clock().Advance(step)
				}
			case !once:
				c.p.Clock().Advance(step)
			}
		}
	}
}

// buildWaited reports whether a request waits for the build of version.
func buildWaited(p *platformtest.Platform, version string) (waited bool) {
	testhooks.Registry(p).Do(func(s *registry.State) {
		for _, a := range s.Apps() {
			for _, r := range s.ReleasesOf(a) {
				waited = waited || (r.Version == version && r.Waiters > 0)
			}
		}
	})
	return waited
}

func TestRESTConformsToOpenAPI(t *testing.T) {
	p := platformtest.New(t, platformtest.WithBuildDuration(time.Hour))
	alpha := p.AddProject("alpha", platformtest.Key(1))
	d1 := alpha.AddDevice("d1", platformtest.Key(1))
	alpha.AddGroup("g1")
	beta := p.AddProject("beta", platformtest.Key(2))
	p.AddUser("alice", worldtest.AliceToken, map[*platformtest.Project]string{alpha: platformtest.RoleAdmin, beta: platformtest.RoleViewer})
	p.AddUser("bob", worldtest.BobToken, nil)
	seeded := p.AddApp("seeded", "")
	p.Install(d1, seeded, platformtest.Dev)
	worldtest.SetLocation(t, p, p.Install(d1, seeded, platformtest.Prod), -122.4194, 37.7749) // d1's record carries a location
	c := newConformance(t, p)
	const A = worldtest.AliceToken
	f := fmt.Sprintf

	// Devices.
	c.ok("GET", "/openapi.json", "", "", 200, nil)
	c.ok("GET", "/v1/ironflock/openapi.json", "", "", 200, nil)
	c.ok("GET", "/devices", A, "", 200, nil)
	var created []rest.Device
	c.ok("POST", "/swarms/1/devices", A, `{"name":"one","description":"the first","architecture":"arm64"}`, 201, &created)
	c.ok("POST", "/swarms/1/devices", A, `[{"name":"two"},{"name":"three","description":null}]`, 201, &created)
	c.ok("GET", f("/devices/%d", created[0].DeviceKey), A, "", 200, nil)
	c.ok("GET", "/v1/ironflock/devices", A, "", 200, nil)

	// Apps and releases.
	var app rest.App
	c.ok("POST", "/apps", A, `{"name":"conform","description":"an app"}`, 201, &app)
	c.ok("GET", f("/apps/%d", app.AppKey), A, "", 200, nil)
	rel := f("/apps/%d/releases", app.AppKey)
	var r rest.Release
	c.ok("POST", rel+"?wait=false", A, `{"version":"0.1.0"}`, 202, &r)
	c.ok("POST", rel+"/cancel", A, "", 200, nil)
	a := c.whileWaiting(time.Second, true, "0.2.0", "POST", rel+"?timeout=1", A, `{"version":"0.2.0"}`)
	if a.Status != http.StatusAccepted || a.Header.Get("Retry-After") == "" {
		t.Errorf("timeout: %d %v %s", a.Status, a.Header, a.Body)
	}
	c.ok("POST", rel+"/cancel", A, "", 200, nil)
	c.whileWaiting(10*time.Minute, false, "1.0.0", "POST", rel, A, `{"version":"1.0.0","data_template":"data:\n  tables: []\n"}`)
	c.whileWaiting(10*time.Minute, false, "1.0.1", "POST", rel+"?wait=true", A, `{"version":"1.0.1","data_template":"data: [1]"}`)
	c.ok("GET", "/apps", A, "", 200, nil)
	var rels []rest.Release
	c.ok("GET", rel+"?swarm_key=1", A, "", 200, &rels)
	if len(rels) != 4 || rels[2].Status != wire.ReleaseReady || rels[3].Status != wire.ReleaseFailed || rels[3].Error == "" {
		t.Errorf("releases %+v", rels)
	}
	c.ok("GET", f("%s/%d?swarm_key=1", rel, rels[2].ReleaseKey), A, "", 200, nil)
	c.ok("DELETE", f("%s/%d", rel, rels[0].ReleaseKey), A, "", 204, nil)

	// Apps on devices.
	dev := created[0].DeviceKey
	c.ok("POST", f("/devices/%d/apps", dev), A, f(`{"app_key":%d}`, app.AppKey), 201, nil)
	c.ok("GET", f("/devices/%d/apps", dev), A, "", 200, nil)
	c.ok("PUT", f("/devices/%d/apps/%d", dev, app.AppKey), A, `{"target_state":"STOPPED"}`, 200, nil)
	c.ok("PUT", f("/devices/1/apps/%d?stage=PROD", seeded.Key()), A, `{"target_state":"PRESENT","release_key":null}`, 200, nil)
	c.ok("DELETE", f("/devices/%d/apps/%d", dev, app.AppKey), A, "", 204, nil)
	c.ok("DELETE", f("/devices/1/apps/%d?stage=DEV", seeded.Key()), A, "", 204, nil)

	// Groups.
	c.ok("GET", "/swarms/1/groups", A, "", 200, nil)
	c.ok("GET", "/swarms/1/groups/1", A, "", 200, nil)
	c.ok("PUT", f("/swarms/1/groups/1/devices/%d", dev), A, "", 200, nil)
	c.ok("POST", "/swarms/1/groups/1/apps", A, f(`{"app_key":%d,"stage":"DEV"}`, app.AppKey), 201, nil)
	c.ok("PUT", f("/swarms/1/groups/1/apps/%d", app.AppKey), A, `{"target_state":"STOPPED"}`, 200, nil)
	c.ok("DELETE", f("/swarms/1/groups/1/apps/%d", app.AppKey), A, "", 204, nil)
	c.ok("DELETE", f("/swarms/1/groups/1/devices/%d", dev), A, "", 204, nil)

	// flockd's tool route: answered 200 with the device's refusal (no
	// device serves the tool).
	bot := p.AddAppWithAgents("bot", "", worldtest.AgentsYAML, platformtest.Key(40))
	p.Install(d1, bot, platformtest.Dev)
	c.ok("POST", "/v1/flockd/devices/1/apps/40/agents/assistant/tools/read_temperature", A, `{"arguments":{"sensor":"inlet"}}`, 200, nil)
	// flockd's transform refresh route.
	p.Install(d1, p.AddApp("sensors", worldtest.RestartTemplate, platformtest.Key(41)), platformtest.Dev)
	c.ok("POST", "/v1/flockd/devices/1/apps/41/transforms/per_sensor/refresh", A, "", 200, nil)

	// Deletions.
	c.ok("DELETE", f("/apps/%d", app.AppKey), A, "", 204, nil)
	c.ok("DELETE", f("/swarms/1/devices/%d", dev), A, "", 204, nil)
	c.ok("DELETE", f("/swarms/1/devices?ids=%d,%d", created[0].DeviceKey+1, created[1].DeviceKey), A, "", 204, nil)

	// Error answers of documented operations, and of no operation.
	for _, e := range []struct{ method, path, token, body string }{
		{"GET", "/devices", "", ""},
		{"GET", "/devices/999", A, ""},
		{"POST", "/swarms/2/devices", A, `{"name":"x"}`},
		{"POST", "/swarms/1/devices", A, `{`},
		{"POST", "/swarms/1/devices", A, `{"name":"d1"}`},
		{"POST", "/swarms/1/devices", A, `{"name":""}`},
		{"POST", "/apps", A, `{"name":"big","description":"` + strings.Repeat("x", rest.MaxBodyBytes) + `"}`},
		{"DELETE", "/swarms/1/devices?ids=1,,x", A, ""},
		{"GET", "/apps/1/releases", A, ""},
		{"POST", "/apps/1/releases?timeout=0", A, `{"version":"1.0.0"}`},
		{"POST", "/apps/1/releases/cancel", A, ""},
		{"DELETE", "/apps/1", A, ""},
		{"DELETE", "/apps/1", worldtest.BobToken, ""},
		{"PUT", "/devices/1/apps/1", A, `{"target_state":"BAD"}`},
		{"PUT", "/devices/1/apps/1", worldtest.BobToken, `{"target_state":"STOPPED"}`},
		{"POST", "/swarms/1/groups/1/apps", A, `{"app_key":1,"stage":"dev"}`},
		{"GET", "/devices/", A, ""},
		{"PATCH", "/devices/1", A, ""},
		{"DELETE", "/v1/ironflock/apps", A, ""},
		{"POST", "/v1/flockd/devices/1/apps/40/agents/assistant/tools/nope", A, `{}`},
		{"POST", "/v1/flockd/devices/1/apps/40/agents/assistant/tools/ask_expert", A, `{}`},
		{"POST", "/v1/flockd/devices/1/apps/40/agents/assistant/tools/read_temperature", A, `{"convention":"sideways"}`},
		{"POST", "/v1/flockd/devices/1/apps/40/agents/assistant/tools/read_temperature", "", `{}`},
		{"GET", "/v1/flockd/devices/1/apps/40/agents/assistant/tools/read_temperature", A, ""},
		{"POST", "/v1/platform/devices/1/apps/40/agents/assistant/tools/read_temperature", A, `{}`},
		{"POST", "/v1/flockd/devices/1/apps/41/transforms/nope/refresh", A, ""},
		{"POST", "/v1/flockd/devices/1/apps/41/transforms/per_sensor/refresh", "", ""},
		{"GET", "/v1/flockd/devices/1/apps/41/transforms/per_sensor/refresh", A, ""},
	} {
		if a := c.do(e.method, e.path, e.token, e.body); a.Status < 400 {
			t.Errorf("%s %s: %d, want an error", e.method, e.path, a.Status)
		}
	}

	// Every operation of the document was answered with success.
	for path, item := range c.doc.Paths.Map() {
		for method, op := range item.Operations() {
			ok := false
			for status := range c.hits[method+" "+path] {
				ok = ok || status < 300
			}
			if !ok {
				t.Errorf("%s %s (%s): never answered with success", method, path, op.OperationID)
			}
		}
	}
}

// TestOpenAPIMatchesRoutes checks that the document and the server list
// the same routes.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(platformtest.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	var inDoc []string
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			inDoc = append(inDoc, method+" "+path)
		}
	}
	served := rest.Routes()
	slices.Sort(inDoc)
	slices.Sort(served)
	if !slices.Equal(inDoc, served) {
		t.Errorf("routes differ:\ndocument: %q\nserver:   %q", inDoc, served)
	}
	raw := platformtest.OpenAPI()
	raw[0] = 'X'
	if again := platformtest.OpenAPI(); again[0] == 'X' || !bytes.Equal(again[1:], raw[1:]) {
		t.Error("OpenAPI must return a copy")
	}
}

// withoutPrefix returns a copy of r whose path lacks prefix, as the API
// sees it.
func withoutPrefix(r *http.Request, prefix string) *http.Request {
	r2 := r.Clone(r.Context())
	r2.URL.Path = strings.TrimPrefix(r.URL.Path, prefix)
	if r2.URL.Path == "" {
		r2.URL.Path = "/"
	}
	r2.URL.RawPath = ""
	return r2
}
