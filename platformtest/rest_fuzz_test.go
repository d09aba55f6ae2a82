package platformtest

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/rest"
)

// FuzzCreateBodies sends arbitrary bodies to the routes that read one:
// nothing may answer 5xx (a panic would be recovered into a 500), and
// every answer is JSON, errors in the {"error", "code"} shape.
func FuzzCreateBodies(f *testing.F) {
	p, err := Start()
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(p.Close)
	pr := p.AddProject("fuzz", Key(1))
	d := pr.AddDevice("dev", Key(1))
	pr.AddGroup("grp", d)
	p.AddUser("fuzzer", "fuzz-token", map[*Project]string{pr: RoleAdmin})
	app := p.AddApp("seeded", "")
	p.Install(d, app, Dev)
	owned := restSend(p, "POST", "/apps", "fuzz-token", `{"name":"owned"}`)
	var a rest.App
	if owned.status != http.StatusCreated || json.Unmarshal(owned.body, &a) != nil {
		f.Fatalf("create app: %d %s", owned.status, owned.body)
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
		ans := restSend(p, r.method, r.path, "fuzz-token", body)
		if ans.status == 0 {
			t.Fatalf("%s %s: %s", r.method, r.path, ans.body)
		}
		if ans.status >= 500 {
			t.Fatalf("%s %s %q: %d %s", r.method, r.path, body, ans.status, ans.body)
		}
		if mt, _, err := mime.ParseMediaType(ans.header.Get("Content-Type")); ans.status != http.StatusNoContent && (err != nil || mt != "application/json") {
			t.Fatalf("%s %s %q: Content-Type %q", r.method, r.path, body, ans.header.Get("Content-Type"))
		}
		if ans.status >= 400 {
			var e map[string]string
			if err := json.Unmarshal(ans.body, &e); err != nil || e["error"] == "" || e["code"] == "" || len(e) != 2 {
				t.Fatalf("%s %s %q: error body %s", r.method, r.path, body, ans.body)
			}
		} else if !json.Valid(ans.body) || strings.TrimSpace(string(ans.body)) == "" {
			t.Fatalf("%s %s %q: body %q", r.method, r.path, body, ans.body)
		}
	})
}
