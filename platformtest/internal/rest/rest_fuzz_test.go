package rest_test

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// FuzzCreateBodies sends arbitrary bodies to the routes that read one:
// nothing may answer 5xx (a panic would be recovered into a 500), and
// every answer is JSON, errors in the {"error", "code"} shape.
func FuzzCreateBodies(f *testing.F) {
	p, err := platformtest.Start()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.Close)
	pr := p.AddProject("fuzz", platformtest.Key(1))
	d := pr.AddDevice("dev", platformtest.Key(1))
	pr.AddGroup("grp", d)
	p.AddUser("fuzzer", "fuzz-token", map[*platformtest.Project]string{pr: platformtest.RoleAdmin})
	app := p.AddApp("seeded", "")
	p.Install(d, app, platformtest.Dev)
	owned := worldtest.RESTSend(p, "POST", "/apps", "fuzz-token", `{"name":"owned"}`)
	var a rest.App
	if owned.Status != http.StatusCreated || json.Unmarshal(owned.Body, &a) != nil {
		f.Fatalf("create app: %d %s", owned.Status, owned.Body)
	}
	routes := []struct{ method, path string }{
		{"POST", "/swarms/1/devices"},
		{"POST", "/devices/1/apps"},
		{"PUT", fmt.Sprintf("/devices/1/apps/%d", app.Key())},
		{"POST", "/apps"},
		{"POST", fmt.Sprintf("/apps/%d/releases?wait=false", a.AppKey)},
		{"POST", "/swarms/1/groups/1/apps"},
		{"PUT", fmt.Sprintf("/swarms/1/groups/1/apps/%d", app.Key())},
	}
	for _, s := range []string{
		`{"name":"a"}`, `[{"name":"b","description":"x","architecture":"arm64"},{"name":"c"}]`, `[]`, `{`, `null`, `5`,
		`{"app_key":1,"stage":"PROD"}`, `{"app_key":"1"}`, `{"target_state":"STOPPED","release_key":1}`,
		`{"name":"x.y-z_1","description":null}`, `{"version":"1.2.3-rc.1+b5","data_template":"data:\n  tables: []\n"}`,
		`{"version":"1.0.0","ai_template":"main:\n  system_prompt: x\n"}`, `{"version":"1.0.0","data_template":"data: [1"}`,
		`{"app_key":1,"release_key":1,"stage":"DEV"}`, `{"release_key":null,"target_state":"PRESENT"}`,
		"\xff\xfe", `{"name":"\u0000"}`, `{"a":{"b":[[[[[]]]]]}}`, `{"name":"a","name":"b"}`, `{"app_key":1e400}`,
	} {
		for i := range routes {
			f.Add(uint8(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, route uint8, body string) {
		r := routes[int(route)%len(routes)]
		ans := worldtest.RESTSend(p, r.method, r.path, "fuzz-token", body)
		if ans.Status == 0 {
			t.Fatalf("%s %s: %s", r.method, r.path, ans.Body)
		}
		if ans.Status >= 500 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, ans.Status, ans.Body)
		}
		if mt, _, err := mime.ParseMediaType(ans.Header.Get("Content-Type")); ans.Status != http.StatusNoContent && (err != nil || mt != "application/json") {
			t.Fatalf("%s %s %q: Content-Type %q", r.method, r.path, body, ans.Header.Get("Content-Type"))
		}
		if ans.Status >= 400 {
			var e map[string]string
			if err := json.Unmarshal(ans.Body, &e); err != nil || e["error"] == "" || e["code"] == "" || len(e) != 2 {
				t.Fatalf("%s %s %q: error body %s", r.method, r.path, body, ans.Body)
			}
		} else if !json.Valid(ans.Body) || strings.TrimSpace(string(ans.Body)) == "" {
			t.Fatalf("%s %s %q: body %q", r.method, r.path, body, ans.Body)
		}
	})
}
