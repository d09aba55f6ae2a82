package platformtest

import (
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
)

// restAnswer is an answer of the management API.
type restAnswer struct {
	status int
	header http.Header
	body   []byte
}

// restDo sends a request with plain net/http. path is relative to the
// server root when it starts with /v1/, else to /v1/platform. token ""
// sends no Authorization header.
func restDo(t testing.TB, p *Platform, method, path, token, body string) restAnswer {
	t.Helper()
	a := restSend(p, method, path, token, body)
	if a.status == 0 {
		t.Fatalf("%s %s: %s", method, path, a.body)
	}
	return a
}

// restSend is restDo for any goroutine: a failure to send is an answer
// with status 0 and the error as body.
func restSend(p *Platform, method, path, token, body string) restAnswer {
	fail := func(err error) restAnswer { return restAnswer{body: []byte(err.Error())} }
	if !strings.HasPrefix(path, "/v1/") {
		path = rest.Prefix + path
	}
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, p.HTTPURL()+path, rd)
	if err != nil {
		return fail(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rsp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fail(err)
	}
	defer rsp.Body.Close()
	b, err := io.ReadAll(rsp.Body)
	if err != nil {
		return fail(err)
	}
	return restAnswer{status: rsp.StatusCode, header: rsp.Header, body: b}
}

// restOK sends a request, fails unless the status is want, and decodes
// the body into out (when not nil).
func restOK(t testing.TB, p *Platform, method, path, token, body string, want int, out any) restAnswer {
	t.Helper()
	a := restDo(t, p, method, path, token, body)
	if a.status != want {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, a.status, want, a.body)
	}
	if out != nil {
		if err := json.Unmarshal(a.body, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, a.body, err)
		}
	}
	return a
}

// checkErrorAnswer checks the shape of an error answer: JSON content type
// and a body of exactly {"error", "code"}, both non-empty strings.
func checkErrorAnswer(t testing.TB, a restAnswer, wantStatus int, wantCode string) {
	t.Helper()
	if a.status != wantStatus {
		t.Errorf("status %d, want %d: %s", a.status, wantStatus, a.body)
	}
	if mt, _, err := mime.ParseMediaType(a.header.Get("Content-Type")); err != nil || mt != "application/json" {
		t.Errorf("Content-Type %q, want application/json", a.header.Get("Content-Type"))
	}
	var m map[string]any
	if err := json.Unmarshal(a.body, &m); err != nil {
		t.Fatalf("body %q is not a JSON object: %v", a.body, err)
	}
	msg, _ := m["error"].(string)
	code, _ := m["code"].(string)
	if len(m) != 2 || msg == "" || code == "" {
		t.Errorf("body %s: want exactly non-empty \"error\" and \"code\"", a.body)
	}
	if wantCode != "" && code != wantCode {
		t.Errorf("code %q, want %q (%s)", code, wantCode, msg)
	}
}

// restSnapshot is the state the management API can change, as text.
type restSnapshot struct {
	Devices, Apps, Releases, Groups, Installs []string
}

func snapshotREST(p *Platform) restSnapshot {
	var s restSnapshot
	p.reg.Do(func(st *registry.State) {
		for _, d := range st.Devices() {
			s.Devices = append(s.Devices, fmt.Sprintf("%d %q %d %s %q %q", d.Key, d.Name, d.Project.Key, d.Serial, d.Description, d.Architecture))
		}
		for _, a := range st.Apps() {
			owner := ""
			if a.Owner != nil {
				owner = a.Owner.Name
			}
			s.Apps = append(s.Apps, fmt.Sprintf("%d %q %q %q %d", a.Key, a.Name, owner, a.Description, len(a.DataTemplate)))
			for _, r := range st.ReleasesOf(a) {
				s.Releases = append(s.Releases, fmt.Sprintf("%d %d %q %s %q %v", r.Key, r.App.Key, r.Version, r.Status, r.Err, r.Finished.IsZero()))
			}
		}
		for _, g := range st.Groups() {
			line := fmt.Sprintf("%d %q %d members", g.Key, g.Name, g.Project.Key)
			for _, d := range g.Devices {
				line += fmt.Sprintf(" %d", d.Key)
			}
			for _, ga := range g.Apps {
				line += fmt.Sprintf(" app %d r%d %s %s", ga.App.Key, ga.Release.Key, ga.Stage, ga.Target)
			}
			s.Groups = append(s.Groups, line)
		}
		for _, d := range st.Devices() {
			for _, in := range st.DeviceInstalls(d) {
				rel, grp := 0, 0
				if in.Release != nil {
					rel = in.Release.Key
				}
				if in.Group != nil {
					grp = in.Group.Key
				}
				s.Installs = append(s.Installs, fmt.Sprintf("{%d %d %s} r%d %s %s g%d %v", d.Key, in.App.Key, in.Stage, rel, in.Target, in.Current, grp, in.Removed))
			}
		}
	})
	for _, l := range [][]string{s.Devices, s.Apps, s.Releases, s.Groups, s.Installs} {
		slices.Sort(l)
	}
	return s
}

// restWorld is a platform provisioned for API tests:
//
//	project alpha (1): devices d1 (1), d2 (2); group g1 (1) = {d1}
//	project beta (2): device d3 (3); group g2 (2) = {d3}
//	users: alice admin of alpha, vic viewer of alpha, bob admin of beta
//	app seeded (1): provisioned in Go, release 1.0.0 READY, on d1 in DEV
//	app mine (alice): release 1.0.0 READY (rel1) on group g1, so on d1;
//	  release 2.0.0 BUILDING (building)
//	app other (alice): release 1.0.0 READY, no build
//	app draft (alice): no release; app secret (bob): no release
//
// Builds take an hour of platform time.
type restWorld struct {
	p                                   *Platform
	alpha, beta                         *Project
	d1, d2, d3                          *Device
	seeded, mine, other, draft, secret  int // app keys
	seededRel, rel1, building, otherRel int // release keys
}

const (
	aliceToken = "alice-token"
	vicToken   = "vic-token"
	bobToken   = "bob-token"
)

func newRESTWorld(t *testing.T) *restWorld {
	t.Helper()
	p := New(t, WithBuildDuration(time.Hour))
	w := &restWorld{p: p}
	w.alpha = p.AddProject("alpha", Key(1))
	w.beta = p.AddProject("beta", Key(2))
	w.d1 = w.alpha.AddDevice("d1", Key(1))
	w.d2 = w.alpha.AddDevice("d2", Key(2))
	w.d3 = w.beta.AddDevice("d3", Key(3))
	w.alpha.AddGroup("g1", w.d1)
	w.beta.AddGroup("g2", w.d3)
	p.AddUser("alice", aliceToken, map[*Project]string{w.alpha: RoleAdmin})
	p.AddUser("vic", vicToken, map[*Project]string{w.alpha: RoleViewer})
	p.AddUser("bob", bobToken, map[*Project]string{w.beta: RoleAdmin})
	seeded := p.AddApp("seeded", "")
	w.seeded = seeded.Key()
	p.Install(w.d1, seeded, Dev)
	w.seededRel = p.InstallationOf(1, w.seeded, Dev).ReleaseKey()

	var a rest.App
	var r rest.Release
	restOK(t, p, "POST", "/apps", aliceToken, `{"name":"mine"}`, 201, &a)
	w.mine = a.AppKey
	restOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", w.mine), aliceToken, `{"version":"1.0.0"}`, 202, &r)
	w.rel1 = r.ReleaseKey
	p.Clock().Advance(time.Hour)
	restOK(t, p, "POST", "/swarms/1/groups/1/apps", aliceToken, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, w.mine), 201, nil)

	restOK(t, p, "POST", "/apps", aliceToken, `{"name":"other"}`, 201, &a)
	w.other = a.AppKey
	restOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", w.other), aliceToken, `{"version":"1.0.0"}`, 202, &r)
	w.otherRel = r.ReleaseKey
	p.Clock().Advance(time.Hour)
	restOK(t, p, "GET", fmt.Sprintf("/apps/%d/releases/%d?swarm_key=1", w.other, w.otherRel), aliceToken, "", 200, &r)
	if r.Status != wire.ReleaseReady {
		t.Fatalf("release of other: %+v", r)
	}
	restOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", w.mine), aliceToken, `{"version":"2.0.0"}`, 202, &r)
	w.building = r.ReleaseKey

	restOK(t, p, "POST", "/apps", aliceToken, `{"name":"draft"}`, 201, &a)
	w.draft = a.AppKey
	restOK(t, p, "POST", "/apps", bobToken, `{"name":"secret"}`, 201, &a)
	w.secret = a.AppKey
	return w
}
