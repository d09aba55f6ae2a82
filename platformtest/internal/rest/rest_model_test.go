package rest_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/google/go-cmp/cmp"
)

// restAdmin provisions project "p" (1) with an admin user and returns the
// platform.
func restAdmin(t *testing.T, opts ...platformtest.Option) (*platformtest.Platform, *platformtest.Project) {
	t.Helper()
	p := platformtest.New(t, opts...)
	pr := p.AddProject("p", platformtest.Key(1))
	p.AddUser("alice", worldtest.AliceToken, map[*platformtest.Project]string{pr: platformtest.RoleAdmin})
	return p, pr
}

func TestRESTBuildOnThePlatformClock(t *testing.T) {
	p, _ := restAdmin(t, platformtest.WithBuildDuration(time.Hour))
	var app rest.App
	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"builder"}`, 201, &app)
	rel := fmt.Sprintf("/apps/%d/releases", app.AppKey)
	const tmpl = "data:\n  tables:\n    - tablename: t\n      columns:\n        - {id: tsp, name: T, dataType: timestamp}\n"
	var r rest.Release
	a := worldtest.RESTOK(t, p, "POST", rel+"?wait=false", worldtest.AliceToken, fmt.Sprintf(`{"version":"1.0.0","data_template":%q}`, tmpl), 202, &r)
	if r.Status != wire.ReleaseBuilding || r.FinishedAt != nil || a.Header.Get("Retry-After") != "" {
		t.Fatalf("created %+v %v", r, a.Header)
	}
	get := func() rest.Release {
		var r2 rest.Release
		worldtest.RESTOK(t, p, "GET", fmt.Sprintf("%s/%d?swarm_key=1", rel, r.ReleaseKey), worldtest.AliceToken, "", 200, &r2)
		return r2
	}
	p.Clock().Advance(59 * time.Minute)
	if got := get(); got.Status != wire.ReleaseBuilding {
		t.Fatalf("after 59m: %+v", got)
	}
	var listed []rest.App
	worldtest.RESTOK(t, p, "GET", "/apps", worldtest.AliceToken, "", 200, &listed)
	if len(listed) != 0 {
		t.Errorf("unreleased app listed: %+v", listed)
	}
	p.Clock().Advance(time.Minute)
	got := get()
	if got.Status != wire.ReleaseReady || got.FinishedAt == nil || !got.FinishedAt.Equal(got.CreatedAt.Add(time.Hour)) {
		t.Fatalf("after 1h: %+v", got)
	}
	worldtest.RESTOK(t, p, "GET", "/apps", worldtest.AliceToken, "", 200, &listed)
	if len(listed) != 1 || !listed[0].Released {
		t.Errorf("released app not listed: %+v", listed)
	}
	if a := p.AppByKey(app.AppKey); a == nil || a.DataTemplate() != tmpl {
		t.Errorf("the app's data template does not follow its READY release")
	}

	// A build in progress, cancelled: 200 with CANCELED, then 409.
	worldtest.RESTOK(t, p, "POST", rel+"?wait=false", worldtest.AliceToken, `{"version":"1.1.0"}`, 202, &r)
	var canceled rest.Release
	worldtest.RESTOK(t, p, "POST", rel+"/cancel", worldtest.AliceToken, "", 200, &canceled)
	if canceled.Status != wire.ReleaseCanceled || canceled.ReleaseKey != r.ReleaseKey || canceled.FinishedAt == nil {
		t.Errorf("canceled %+v", canceled)
	}
	worldtest.CheckErrorAnswer(t, worldtest.RESTDo(t, p, "POST", rel+"/cancel", worldtest.AliceToken, ""), 409, wire.CodeNoBuildInProgress)
	p.Clock().Advance(2 * time.Hour)
	if got := get(); got.Status != wire.ReleaseCanceled {
		t.Errorf("a cancelled build ended: %+v", got)
	}

	// An invalid agent template fails the build with the validator's
	// message; the app keeps the template of its READY release.
	worldtest.RESTOK(t, p, "POST", rel+"?wait=false", worldtest.AliceToken, `{"version":"2.0.0","data_template":"data: {}","ai_template":"bot:\n  main: true\n"}`, 202, &r)
	p.Clock().Advance(time.Hour)
	var all []rest.Release
	worldtest.RESTOK(t, p, "GET", rel+"?swarm_key=1", worldtest.AliceToken, "", 200, &all)
	last := all[len(all)-1]
	if last.Version != "2.0.0" || last.Status != wire.ReleaseFailed || !strings.Contains(last.Error, "template:") {
		t.Errorf("failed build %+v", last)
	}
	if p.AppByKey(app.AppKey).DataTemplate() != tmpl {
		t.Error("a FAILED release changed the app's data template")
	}
}

func TestRESTWaitAndTimeout(t *testing.T) {
	p, _ := restAdmin(t, platformtest.WithBuildDuration(time.Hour))
	var app rest.App
	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"waiter"}`, 201, &app)
	c := newConformance(t, p)
	rel := fmt.Sprintf("/apps/%d/releases", app.AppKey)

	// The timeout passes first: 202, BUILDING, Retry-After = the build left.
	asked := time.Now()
	a := c.whileWaiting(2500*time.Millisecond, true, "1.0.0", "POST", rel+"?timeout=2.5", worldtest.AliceToken, `{"version":"1.0.0"}`)
	var r rest.Release
	if err := json.Unmarshal(a.Body, &r); err != nil || a.Status != 202 || r.Status != wire.ReleaseBuilding {
		t.Fatalf("timeout: %d %s", a.Status, a.Body)
	}
	// 1h - 2.5 s, rounded up, less the real time the request took: the
	// platform clock runs on, and a loaded machine is slow.
	lo := int(math.Ceil(3597.5 - time.Since(asked).Seconds()))
	if ra, err := strconv.Atoi(a.Header.Get("Retry-After")); err != nil || ra > 3598 || ra < lo {
		t.Errorf("Retry-After %q, want %d to 3598", a.Header.Get("Retry-After"), lo)
	}
	// The build ends first: 201 with the READY release.
	worldtest.RESTOK(t, p, "POST", rel+"/cancel", worldtest.AliceToken, "", 200, nil)
	a = c.whileWaiting(30*time.Minute, true, "1.0.1", "POST", rel+"?timeout=1800", worldtest.AliceToken, `{"version":"1.0.1"}`)
	if a.Status != 202 { // 30 minutes of timeout, 60 of build
		t.Errorf("timeout 1800: %d %s", a.Status, a.Body)
	}
	worldtest.RESTOK(t, p, "POST", rel+"/cancel", worldtest.AliceToken, "", 200, nil)
	a = c.whileWaiting(10*time.Minute, false, "1.0.2", "POST", rel, worldtest.AliceToken, `{"version":"1.0.2"}`)
	if err := json.Unmarshal(a.Body, &r); err != nil || a.Status != 201 || r.Status != wire.ReleaseReady || a.Header.Get("Retry-After") != "" {
		t.Fatalf("wait: %d %s", a.Status, a.Body)
	}
	// A cancel while a request waits ends the wait with 201 CANCELED.
	done := make(chan worldtest.RESTAnswer, 1)
	go func() { done <- worldtest.RESTSend(p, "POST", rel, worldtest.AliceToken, `{"version":"1.0.3"}`) }()
	for {
		if worldtest.RESTDo(t, p, "POST", rel+"/cancel", worldtest.AliceToken, "").Status == 200 {
			break
		}
		time.Sleep(time.Millisecond) // the build has not started yet
	}
	a = <-done
	if err := json.Unmarshal(a.Body, &r); err != nil || a.Status != 201 || r.Status != wire.ReleaseCanceled {
		t.Errorf("cancelled wait: %d %s", a.Status, a.Body)
	}
}

func TestRESTDefaultBuildIsImmediate(t *testing.T) {
	p, _ := restAdmin(t)
	var app rest.App
	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"quick"}`, 201, &app)
	var r rest.Release
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases", app.AppKey), worldtest.AliceToken, `{"version":"1.0.0"}`, 201, &r)
	if r.Status != wire.ReleaseReady {
		t.Errorf("default build: %+v", r)
	}
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", app.AppKey), worldtest.AliceToken, `{"version":"1.0.1"}`, 202, &r)
	if r.Status != wire.ReleaseBuilding {
		t.Errorf("wait=false: %+v", r)
	}
	worldtest.RESTOK(t, p, "GET", fmt.Sprintf("/apps/%d/releases/%d?swarm_key=1", app.AppKey, r.ReleaseKey), worldtest.AliceToken, "", 200, &r)
	if r.Status != wire.ReleaseReady {
		t.Errorf("next look: %+v", r)
	}
}

func TestRESTDeviceStatus(t *testing.T) {
	p, pr := restAdmin(t)
	d := pr.AddDevice("d", platformtest.Key(1))
	other := pr.AddDevice("o", platformtest.Key(2))
	app := p.AddApp("a", "")
	in := p.Install(d, app, platformtest.Dev)
	status := func(key int) string {
		var v rest.Device
		worldtest.RESTOK(t, p, "GET", fmt.Sprintf("/devices/%d", key), worldtest.AliceToken, "", 200, &v)
		return v.Status
	}
	if s := status(1); s != wire.DeviceDisconnected {
		t.Errorf("before joining: %s", s)
	}
	c := worldtest.Connect(t, p, in, serialize.MSGPACK)
	if s := status(1); s != wire.DeviceConnected {
		t.Errorf("joined: %s", s)
	}
	left := func(n int) { // the router has seen all but n sessions leave
		for len(p.Sessions()) > n {
			runtime.Gosched()
		}
	}
	second := worldtest.Connect(t, p, in, serialize.MSGPACK) // the device's app joined twice: one leaving leaves it online
	_ = second.Close()
	left(1)
	if s := status(1); s != wire.DeviceConnected {
		t.Errorf("one of two sessions left: %s", s)
	}
	_ = c.Close()
	left(0)
	if s := status(1); s != wire.DeviceDisconnected {
		t.Errorf("both sessions left: %s", s)
	}
	oi := p.Install(other, app, platformtest.Dev)
	oi.SetCurrentState(platformtest.AppDownloading)
	if s := status(2); s != wire.DeviceConfiguring {
		t.Errorf("downloading: %s", s)
	}
	worldtest.RESTOK(t, p, "PUT", fmt.Sprintf("/devices/2/apps/%d", app.Key()), worldtest.AliceToken, `{"target_state":"STOPPED"}`, 200, nil)
	if s := status(2); s != wire.DeviceDisconnected || oi.CurrentState() != platformtest.AppStopped || oi.TargetState() != platformtest.AppStopped {
		t.Errorf("stopped: %s %s %s", s, oi.CurrentState(), oi.TargetState())
	}
}

// joinRefused joins with a per-app credential and expects ABORT
// authentication_failed.
func joinRefused(t *testing.T, p *platformtest.Platform, realm, authid, secret string) {
	t.Helper()
	w := worldtest.DialWire(t, p, false)
	msg := w.Join(realm, authid, secret)
	ab, ok := msg.(*wamp.Abort)
	if !ok || ab.Reason != wamp.ErrAuthenticationFailed {
		t.Fatalf("join of %s: %v, want ABORT authentication_failed", authid, msg)
	}
}

func TestRESTInstallOpensTheRouterAndUninstallClosesIt(t *testing.T) {
	p, _ := restAdmin(t)
	var devs []rest.Device
	worldtest.RESTOK(t, p, "POST", "/swarms/1/devices", worldtest.AliceToken, `{"name":"edge"}`, 201, &devs)
	var app rest.App
	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"edgeapp"}`, 201, &app)
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases", app.AppKey), worldtest.AliceToken, `{"version":"1.0.0"}`, 201, nil)
	var da rest.DeviceApp
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/devices/%d/apps", devs[0].DeviceKey), worldtest.AliceToken, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, app.AppKey), 201, &da)
	in := p.InstallationOf(devs[0].DeviceKey, app.AppKey, platformtest.Dev)
	if in == nil || in.Device().Serial() != devs[0].SerialNumber || da.ReleaseKey == nil || in.ReleaseKey() != *da.ReleaseKey {
		t.Fatalf("installation %v, answer %+v", in, da)
	}
	worldtest.Connect(t, p, in, serialize.JSON) // the realm exists and the credential works
	id, secret := in.Credentials()
	worldtest.RESTOK(t, p, "DELETE", fmt.Sprintf("/devices/%d/apps/%d", devs[0].DeviceKey, app.AppKey), worldtest.AliceToken, "", 204, nil)
	joinRefused(t, p, in.Realm(), id, secret)
	log := p.AuthLog()
	if last := log[len(log)-1]; last.Admitted || last.Reason != registry.DenyNotInstalled {
		t.Errorf("auth log %+v", last)
	}
	if p.InstallationOf(devs[0].DeviceKey, app.AppKey, platformtest.Dev) != nil || in.CurrentState() != platformtest.AppRemoved {
		t.Error("installation still there")
	}
}

func TestRESTGroupPropagation(t *testing.T) {
	p, pr := restAdmin(t)
	d1, d2 := pr.AddDevice("d1", platformtest.Key(1)), pr.AddDevice("d2", platformtest.Key(2))
	g1 := pr.AddGroup("g1", d1)
	g2 := pr.AddGroup("g2")
	app := p.AddApp("shared", "")
	direct := p.AddApp("direct", "")
	p.Install(d2, direct, platformtest.Prod)
	path := func(g *platformtest.Group, rest string) string {
		return fmt.Sprintf("/swarms/1/groups/%d%s", g.Key(), rest)
	}
	installs := func() []string { return snapshotREST(p).Installs }

	worldtest.RESTOK(t, p, "POST", path(g1, "/apps"), worldtest.AliceToken, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, app.Key()), 201, nil)
	worldtest.RESTOK(t, p, "POST", path(g1, "/apps"), worldtest.AliceToken, fmt.Sprintf(`{"app_key":%d}`, direct.Key()), 201, nil)
	in := p.InstallationOf(1, app.Key(), platformtest.Dev)
	if in == nil || !in.Inherited() {
		t.Fatalf("d1 did not inherit: %v", installs())
	}
	// d2 joins: it inherits app, keeps its direct installation of direct.
	var g rest.Group
	worldtest.RESTOK(t, p, "PUT", path(g1, "/devices/2"), worldtest.AliceToken, "", 200, &g)
	worldtest.RESTOK(t, p, "PUT", path(g1, "/devices/2"), worldtest.AliceToken, "", 200, &g) // idempotent
	if !cmp.Equal(g.DeviceKeys, []int{1, 2}) || len(g.Apps) != 2 {
		t.Errorf("group %+v", g)
	}
	if in2 := p.InstallationOf(2, direct.Key(), platformtest.Prod); in2 == nil || in2.Inherited() {
		t.Errorf("direct installation taken over: %v", installs())
	}
	// The group's update reaches inherited installations only.
	worldtest.RESTOK(t, p, "PUT", path(g1, fmt.Sprintf("/apps/%d", direct.Key())), worldtest.AliceToken, `{"target_state":"STOPPED"}`, 200, nil)
	if p.InstallationOf(2, direct.Key(), platformtest.Prod).TargetState() != platformtest.AppRunning || p.InstallationOf(1, direct.Key(), platformtest.Prod).TargetState() != platformtest.AppStopped {
		t.Errorf("update: %v", installs())
	}
	// g2 carries app too: when d1 leaves g1, g2 takes the installation
	// over in place (same stage), with g2's state.
	worldtest.RESTOK(t, p, "POST", path(g2, "/apps"), worldtest.AliceToken, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, app.Key()), 201, nil)
	worldtest.RESTOK(t, p, "PUT", path(g2, "/devices/1"), worldtest.AliceToken, "", 200, nil)
	worldtest.RESTOK(t, p, "PUT", path(g2, fmt.Sprintf("/apps/%d", app.Key())), worldtest.AliceToken, `{"target_state":"PRESENT"}`, 200, nil)
	if in.TargetState() != platformtest.AppRunning {
		t.Errorf("g2 changed g1's installation: %s", in.TargetState())
	}
	worldtest.RESTOK(t, p, "DELETE", path(g1, "/devices/1"), worldtest.AliceToken, "", 204, nil)
	if now := p.InstallationOf(1, app.Key(), platformtest.Dev); now != in || !in.Inherited() || in.TargetState() != platformtest.AppPresent {
		t.Errorf("take-over: %v", installs())
	}
	if p.InstallationOf(1, direct.Key(), platformtest.Prod) != nil {
		t.Errorf("d1 kept direct after leaving g1: %v", installs())
	}
	// Removing the app from g1 removes it from d2, not d2's direct one.
	worldtest.RESTOK(t, p, "DELETE", path(g1, fmt.Sprintf("/apps/%d", app.Key())), worldtest.AliceToken, "", 204, nil)
	worldtest.RESTOK(t, p, "DELETE", path(g1, fmt.Sprintf("/apps/%d", direct.Key())), worldtest.AliceToken, "", 204, nil)
	if p.InstallationOf(2, app.Key(), platformtest.Dev) != nil || p.InstallationOf(2, direct.Key(), platformtest.Prod) == nil {
		t.Errorf("after removal: %v", installs())
	}
	// Deleting a device drops its memberships.
	worldtest.RESTOK(t, p, "DELETE", "/swarms/1/devices?ids=1", worldtest.AliceToken, "", 204, nil)
	worldtest.RESTOK(t, p, "GET", path(g2, ""), worldtest.AliceToken, "", 200, &g)
	if len(g.DeviceKeys) != 0 || p.InstallationOf(1, app.Key(), platformtest.Dev) != nil {
		t.Errorf("after delete: %+v %v", g, installs())
	}
}

func TestRESTAliasAndDocument(t *testing.T) {
	p, _ := restAdmin(t)
	var devs []rest.Device
	worldtest.RESTOK(t, p, "POST", "/v1/ironflock/swarms/1/devices", worldtest.AliceToken, `{"name":"via-alias"}`, 201, &devs)
	var got rest.Device
	worldtest.RESTOK(t, p, "GET", fmt.Sprintf("/devices/%d", devs[0].DeviceKey), worldtest.AliceToken, "", 200, &got)
	if got.Name != "via-alias" {
		t.Errorf("got %+v", got)
	}
	for _, path := range []string{"/v1/platform/openapi.json", "/v1/ironflock/openapi.json"} {
		a := worldtest.RESTDo(t, p, "GET", path, "", "")
		if a.Status != 200 || a.Header.Get("Content-Type") != "application/json" || string(a.Body) != string(platformtest.OpenAPI()) {
			t.Errorf("%s: %d %v", path, a.Status, a.Header)
		}
	}
	// A HEAD on a GET route answers like the GET, without a body.
	if a := worldtest.RESTDo(t, p, "HEAD", "/devices", worldtest.AliceToken, ""); a.Status != http.StatusOK || len(a.Body) != 0 {
		t.Errorf("HEAD: %d %q", a.Status, a.Body)
	}
	// The scheme is case-insensitive.
	req, _ := http.NewRequest("GET", p.ManagementURL()+"/devices", nil)
	req.Header.Set("Authorization", "bearer "+worldtest.AliceToken)
	rsp, err := http.DefaultClient.Do(req)
	if err != nil || rsp.StatusCode != 200 {
		t.Errorf("lower-case bearer: %v %v", rsp, err)
	}
	if rsp != nil {
		_ = rsp.Body.Close()
	}
}

func TestRESTSeedUsers(t *testing.T) {
	p := platformtest.New(t)
	seed, err := platformtest.ParseSeed([]byte(`projects:
  - name: demo
    devices: [{name: a}, {name: b}]
    groups: [{name: line, devices: [a]}]
users:
  - {name: ann, token: ann-token, projects: {demo: viewer}}
`), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(seed); err != nil {
		t.Fatal(err)
	}
	var devs []rest.Device
	worldtest.RESTOK(t, p, "GET", "/devices", "ann-token", "", 200, &devs)
	var groups []rest.Group
	worldtest.RESTOK(t, p, "GET", fmt.Sprintf("/swarms/%d/groups", devs[0].SwarmKey), "ann-token", "", 200, &groups)
	if len(devs) != 2 || len(groups) != 1 || !cmp.Equal(groups[0].DeviceKeys, []int{devs[0].DeviceKey}) {
		t.Errorf("devices %+v groups %+v", devs, groups)
	}
	worldtest.CheckErrorAnswer(t, worldtest.RESTDo(t, p, "POST", fmt.Sprintf("/swarms/%d/devices", devs[0].SwarmKey), "ann-token", `{"name":"c"}`), 403, wire.CodeForbidden)
}
