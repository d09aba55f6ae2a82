package management_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/management"
	"github.com/flockgo/ironflock/platformtest"
)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// fleet is a platform with project "plant" (1) holding group "line" (1),
// an admin alice and a viewer vic.
type fleet struct {
	p     *platformtest.Platform
	plant *platformtest.Project
	line  *platformtest.Group
	alice *management.Client
	vic   *management.Client
}

func newFleet(t *testing.T, opts ...platformtest.Option) *fleet {
	t.Helper()
	p := platformtest.New(t, opts...)
	plant := p.AddProject("plant", platformtest.Key(1))
	f := &fleet{p: p, plant: plant, line: plant.AddGroup("line")}
	p.AddUser("alice", "alice-token", map[*platformtest.Project]string{plant: platformtest.RoleAdmin})
	p.AddUser("vic", "vic-token", map[*platformtest.Project]string{plant: platformtest.RoleViewer})
	f.alice = management.New(p.HTTPURL(), "alice-token")
	f.vic = management.New(p.ManagementURL(), "vic-token")
	return f
}

// result is a value and an error, as a call returns them.
type result[T any] struct {
	v   T
	err error
}

// res captures the results of a call for must.
func res[T any](v T, err error) result[T] { return result[T]{v, err} }

// must returns the value of r, failing the test on its error.
func must[T any](t *testing.T, r result[T]) T {
	t.Helper()
	if r.err != nil {
		t.Fatal(r.err)
	}
	return r.v
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var e *management.Error
	if !errors.As(err, &e) || e.Code != code || e.Message == "" {
		t.Errorf("error %v, want code %s", err, code)
	}
}

func TestDevices(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	ctx := testCtx(t)
	devs := must(t, res(f.alice.CreateDevices(ctx, 1, management.NewDevice{Name: "press", Description: "the press", Architecture: "arm64"},
		management.NewDevice{Name: "lathe"})))
	if len(devs) != 2 || devs[0].Name != "press" || devs[0].Architecture != "arm64" || devs[1].Name != "lathe" ||
		devs[0].SwarmKey != 1 || devs[0].Status != management.DeviceDisconnected || len(devs[0].SerialNumber) != 36 {
		t.Fatalf("created %+v", devs)
	}
	got := must(t, res(f.vic.GetDevice(ctx, devs[0].DeviceKey)))
	if diff := cmp.Diff(&devs[0], got); diff != "" {
		t.Errorf("get (-created +got):\n%s", diff)
	}
	list := must(t, res(f.vic.ListDevices(ctx)))
	if diff := cmp.Diff(devs, list); diff != "" {
		t.Errorf("list (-created +listed):\n%s", diff)
	}
	_, err := f.vic.CreateDevices(ctx, 1, management.NewDevice{Name: "x"})
	wantCode(t, err, management.CodeForbidden)
	if !errors.Is(err, management.ErrForbidden) || errors.Is(err, management.ErrNotFound) {
		t.Errorf("errors.Is on %v", err)
	}
	_, err = f.alice.CreateDevices(ctx, 1, management.NewDevice{Name: "press"})
	if !errors.Is(err, management.ErrAlreadyExists) {
		t.Errorf("duplicate: %v", err)
	}
	_, err = f.alice.CreateDevices(ctx, 1)
	wantCode(t, err, management.CodeValidation)

	if err := f.alice.DeleteDevices(ctx, 1, devs[0].DeviceKey, 999); !errors.Is(err, management.ErrNotFound) {
		t.Errorf("bulk delete with an unknown key: %v", err)
	}
	if len(must(t, res(f.alice.ListDevices(ctx)))) != 2 {
		t.Error("a failed bulk delete deleted something")
	}
	if err := f.alice.DeleteDevice(ctx, 1, devs[0].DeviceKey); err != nil {
		t.Fatal(err)
	}
	if err := f.alice.DeleteDevices(ctx, 1, devs[1].DeviceKey); err != nil {
		t.Fatal(err)
	}
	if _, err := f.alice.GetDevice(ctx, devs[0].DeviceKey); !errors.Is(err, management.ErrNotFound) {
		t.Errorf("deleted device: %v", err)
	}
	if l := must(t, res(f.alice.ListDevices(ctx))); len(l) != 0 {
		t.Errorf("left %+v", l)
	}
}

func TestAppsAndReleases(t *testing.T) {
	leakcheck.Check(t)
	// Builds take 1000 hours: the loop below that moves the clock by a
	// second until a one-second timeout passes never reaches the end.
	const build = 1000 * time.Hour
	f := newFleet(t, platformtest.WithBuildDuration(build))
	ctx := testCtx(t)
	app := must(t, res(f.alice.CreateApp(ctx, management.NewApp{Name: "telemetry", Description: "readings"})))
	if app.Name != "telemetry" || app.Description != "readings" || app.Released {
		t.Fatalf("app %+v", app)
	}
	if got := must(t, res(f.alice.GetApp(ctx, app.AppKey))); !cmp.Equal(got, app) {
		t.Errorf("get %+v", got)
	}
	if _, err := f.vic.GetApp(ctx, app.AppKey); !errors.Is(err, management.ErrNotFound) {
		t.Errorf("an unreleased app seen by another user: %v", err)
	}

	// wait=false, then Wait polls until the clock ends the build.
	r := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.0", DataTemplate: "data:\n  tables: []\n"}, management.NoWait())))
	if r.Status != management.StatusBuilding || r.FinishedAt != nil {
		t.Fatalf("release %+v", r)
	}
	if _, err := f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.1"}, management.NoWait()); !errors.Is(err, management.ErrBuildInProgress) {
		t.Errorf("second build: %v", err)
	}
	waited := make(chan *management.Release, 1)
	go func() {
		r, err := f.alice.Wait(ctx, app.AppKey, r.ReleaseKey, 1, management.PollInterval(time.Millisecond))
		if err != nil {
			t.Error(err)
		}
		waited <- r
	}()
	f.p.Clock().Advance(build)
	ready := <-waited
	if ready == nil || ready.Status != management.StatusReady || ready.FinishedAt == nil {
		t.Fatalf("waited %+v", ready)
	}

	// A timeout that passes first leaves the release BUILDING; cancel it.
	done := make(chan *management.Release, 1)
	go func() {
		r, err := f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.1.0"}, management.WaitTimeout(time.Second))
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	var timedOut *management.Release
	for timedOut == nil {
		select {
		case timedOut = <-done:
		case <-time.After(time.Millisecond):
			f.p.Clock().Advance(time.Second)
		}
	}
	if timedOut == nil || timedOut.Status != management.StatusBuilding {
		t.Fatalf("timed out %+v", timedOut)
	}
	canceled := must(t, res(f.alice.CancelRelease(ctx, app.AppKey)))
	if canceled.ReleaseKey != timedOut.ReleaseKey || canceled.Status != management.StatusCanceled {
		t.Errorf("canceled %+v", canceled)
	}
	if _, err := f.alice.CancelRelease(ctx, app.AppKey); !errors.Is(err, management.ErrNoBuildInProgress) {
		t.Errorf("cancel twice: %v", err)
	}

	// Everyone sees the released app and its READY releases only.
	apps := must(t, res(f.vic.ListApps(ctx)))
	if len(apps) != 1 || apps[0].AppKey != app.AppKey || !apps[0].Released {
		t.Errorf("apps %+v", apps)
	}
	if rs := must(t, res(f.vic.ListReleases(ctx, app.AppKey, 1))); len(rs) != 1 || rs[0].Version != "1.0.0" {
		t.Errorf("vic's releases %+v", rs)
	}
	if rs := must(t, res(f.alice.ListReleases(ctx, app.AppKey, 1))); len(rs) != 2 || rs[1].Status != management.StatusCanceled {
		t.Errorf("alice's releases %+v", rs)
	}
	if _, err := f.alice.ListReleases(ctx, app.AppKey, 99); !errors.Is(err, management.ErrNotFound) {
		t.Errorf("foreign project: %v", err)
	}
	got := must(t, res(f.vic.GetRelease(ctx, app.AppKey, ready.ReleaseKey, 1)))
	if got.Version != "1.0.0" || got.Installations != 0 {
		t.Errorf("release %+v", got)
	}
	if err := f.vic.DeleteRelease(ctx, app.AppKey, ready.ReleaseKey); !errors.Is(err, management.ErrForbidden) {
		t.Errorf("non-owner delete: %v", err)
	}
	if err := f.alice.DeleteRelease(ctx, app.AppKey, canceled.ReleaseKey); err != nil {
		t.Fatal(err)
	}
	if err := f.vic.DeleteApp(ctx, app.AppKey); !errors.Is(err, management.ErrForbidden) {
		t.Errorf("non-owner delete app: %v", err)
	}
	if err := f.alice.DeleteApp(ctx, app.AppKey); err != nil {
		t.Fatal(err)
	}
	if _, err := f.alice.GetApp(ctx, app.AppKey); !errors.Is(err, management.ErrNotFound) {
		t.Errorf("deleted app: %v", err)
	}
}

func TestFailedBuild(t *testing.T) {
	f := newFleet(t)
	ctx := testCtx(t)
	app := must(t, res(f.alice.CreateApp(ctx, management.NewApp{Name: "broken"})))
	r := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.0",
		DataTemplate: "data:\n  tables:\n    - tablename: Bad Name\n      columns: []\n"})))
	if r.Status != management.StatusFailed || !strings.Contains(r.Error, "tablename") {
		t.Errorf("release %+v", r)
	}
	_, err := f.alice.InstallApp(ctx, 1, management.Install{AppKey: app.AppKey})
	wantCode(t, err, management.CodeNotFound) // device 1 does not exist
}

func TestDeviceApps(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	ctx := testCtx(t)
	dev := must(t, res(f.alice.CreateDevices(ctx, 1, management.NewDevice{Name: "press"})))[0]
	app := must(t, res(f.alice.CreateApp(ctx, management.NewApp{Name: "telemetry"})))
	if _, err := f.alice.InstallApp(ctx, dev.DeviceKey, management.Install{AppKey: app.AppKey}); err == nil {
		t.Fatal("installed an app without a READY release")
	} else {
		wantCode(t, err, management.CodeNotReleased)
	}
	r1 := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.0"})))
	r2 := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.1.0"})))
	da := must(t, res(f.alice.InstallApp(ctx, dev.DeviceKey, management.Install{AppKey: app.AppKey, ReleaseKey: r1.ReleaseKey})))
	want := management.DeviceApp{DeviceKey: dev.DeviceKey, AppKey: app.AppKey, AppName: "telemetry", ReleaseKey: r1.ReleaseKey,
		Stage: management.Prod, CurrentState: management.Running, TargetState: management.Running}
	if diff := cmp.Diff(want, *da); diff != "" {
		t.Errorf("installed (-want +got):\n%s", diff)
	}
	if _, err := f.alice.InstallApp(ctx, dev.DeviceKey, management.Install{AppKey: app.AppKey, Stage: management.Dev}); !errors.Is(err, management.ErrAlreadyInstalled) {
		t.Errorf("install twice: %v", err)
	}
	da = must(t, res(f.alice.SetAppState(ctx, dev.DeviceKey, app.AppKey, management.StateChange{TargetState: management.Stopped, ReleaseKey: r2.ReleaseKey})))
	if da.TargetState != management.Stopped || da.CurrentState != management.Stopped || da.ReleaseKey != r2.ReleaseKey {
		t.Errorf("state %+v", da)
	}
	if _, err := f.vic.SetAppState(ctx, dev.DeviceKey, app.AppKey, management.StateChange{TargetState: management.Running}); !errors.Is(err, management.ErrForbidden) {
		t.Errorf("viewer: %v", err)
	}
	if rel := must(t, res(f.alice.GetRelease(ctx, app.AppKey, r2.ReleaseKey, 1))); rel.Installations != 1 {
		t.Errorf("installations %+v", rel)
	}
	if err := f.alice.DeleteRelease(ctx, app.AppKey, r2.ReleaseKey); !errors.Is(err, management.ErrInUse) {
		t.Errorf("delete a release in use: %v", err)
	}
	if l := must(t, res(f.vic.ListDeviceApps(ctx, dev.DeviceKey))); len(l) != 1 || l[0] != *da {
		t.Errorf("list %+v", l)
	}
	if err := f.alice.UninstallApp(ctx, dev.DeviceKey, app.AppKey); err != nil {
		t.Fatal(err)
	}
	if l := must(t, res(f.alice.ListDeviceApps(ctx, dev.DeviceKey))); len(l) != 0 {
		t.Errorf("after uninstall %+v", l)
	}
	// An app installed in Go in both stages is named with StateChange.Stage.
	seeded := f.p.AddApp("seeded", "")
	d := f.p.DeviceByKey(dev.DeviceKey)
	f.p.Install(d, seeded, platformtest.Dev)
	f.p.Install(d, seeded, platformtest.Prod)
	_, err := f.alice.SetAppState(ctx, dev.DeviceKey, seeded.Key(), management.StateChange{TargetState: management.Present})
	wantCode(t, err, management.CodeValidation)
	da = must(t, res(f.alice.SetAppState(ctx, dev.DeviceKey, seeded.Key(), management.StateChange{TargetState: management.Present, Stage: management.Dev})))
	if da.Stage != management.Dev || da.TargetState != management.Present {
		t.Errorf("stage DEV %+v", da)
	}
}

func TestGroups(t *testing.T) {
	leakcheck.Check(t)
	f := newFleet(t)
	ctx := testCtx(t)
	dev := must(t, res(f.alice.CreateDevices(ctx, 1, management.NewDevice{Name: "press"})))[0]
	app := must(t, res(f.alice.CreateApp(ctx, management.NewApp{Name: "telemetry"})))
	r1 := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "1.0.0"})))
	r2 := must(t, res(f.alice.CreateRelease(ctx, app.AppKey, management.NewRelease{Version: "2.0.0"})))

	groups := must(t, res(f.vic.ListGroups(ctx, 1)))
	want := []management.Group{{GroupKey: f.line.Key(), SwarmKey: 1, Name: "line", DeviceKeys: []int{}, Apps: []management.GroupApp{}}}
	if diff := cmp.Diff(want, groups); diff != "" {
		t.Errorf("groups (-want +got):\n%s", diff)
	}
	ga := must(t, res(f.alice.InstallGroupApp(ctx, 1, f.line.Key(), management.GroupInstall{AppKey: app.AppKey, ReleaseKey: r1.ReleaseKey, Stage: management.Dev})))
	if *ga != (management.GroupApp{AppKey: app.AppKey, ReleaseKey: r1.ReleaseKey, Stage: management.Dev, TargetState: management.Running}) {
		t.Errorf("group app %+v", ga)
	}
	g := must(t, res(f.alice.AddDeviceToGroup(ctx, 1, f.line.Key(), dev.DeviceKey)))
	if !cmp.Equal(g.DeviceKeys, []int{dev.DeviceKey}) || len(g.Apps) != 1 {
		t.Errorf("group %+v", g)
	}
	if d := must(t, res(f.alice.GetDevice(ctx, dev.DeviceKey))); !cmp.Equal(d.GroupKeys, []int{f.line.Key()}) {
		t.Errorf("device %+v", d)
	}
	apps := must(t, res(f.alice.ListDeviceApps(ctx, dev.DeviceKey)))
	if len(apps) != 1 || !apps[0].InheritFromGroup || apps[0].ReleaseKey != r1.ReleaseKey || apps[0].Stage != management.Dev {
		t.Fatalf("inherited %+v", apps)
	}
	if err := f.alice.UninstallApp(ctx, dev.DeviceKey, app.AppKey); err == nil {
		t.Error("uninstalled an inherited app")
	} else {
		wantCode(t, err, management.CodeInherited)
	}
	ga = must(t, res(f.alice.UpdateGroupApp(ctx, 1, f.line.Key(), app.AppKey, management.GroupAppChange{ReleaseKey: r2.ReleaseKey, TargetState: management.Stopped})))
	if ga.ReleaseKey != r2.ReleaseKey || ga.TargetState != management.Stopped {
		t.Errorf("updated %+v", ga)
	}
	apps = must(t, res(f.alice.ListDeviceApps(ctx, dev.DeviceKey)))
	if apps[0].ReleaseKey != r2.ReleaseKey || apps[0].TargetState != management.Stopped {
		t.Errorf("propagated %+v", apps)
	}
	if got := must(t, res(f.alice.GetGroup(ctx, 1, f.line.Key()))); got.Apps[0] != *ga {
		t.Errorf("group %+v", got)
	}
	if _, err := f.vic.UpdateGroupApp(ctx, 1, f.line.Key(), app.AppKey, management.GroupAppChange{TargetState: management.Running}); !errors.Is(err, management.ErrForbidden) {
		t.Errorf("viewer: %v", err)
	}
	if _, err := f.alice.UpdateGroupApp(ctx, 1, f.line.Key(), app.AppKey, management.GroupAppChange{}); !errors.Is(err, management.ErrValidation) {
		t.Errorf("empty change: %v", err)
	}
	if err := f.alice.RemoveGroupApp(ctx, 1, f.line.Key(), app.AppKey); err != nil {
		t.Fatal(err)
	}
	if apps := must(t, res(f.alice.ListDeviceApps(ctx, dev.DeviceKey))); len(apps) != 0 {
		t.Errorf("after removal %+v", apps)
	}
	if err := f.alice.RemoveDeviceFromGroup(ctx, 1, f.line.Key(), dev.DeviceKey); err != nil {
		t.Fatal(err)
	}
	if err := f.alice.RemoveDeviceFromGroup(ctx, 1, f.line.Key(), dev.DeviceKey); !errors.Is(err, management.ErrNotFound) {
		t.Errorf("remove twice: %v", err)
	}
}

func TestClientErrors(t *testing.T) {
	f := newFleet(t)
	ctx := testCtx(t)
	stranger := management.New(f.p.HTTPURL(), "nobody")
	_, err := stranger.ListDevices(ctx)
	if !errors.Is(err, management.ErrUnauthenticated) {
		t.Errorf("unknown token: %v", err)
	}
	var e *management.Error
	if !errors.As(err, &e) || e.Status != 401 || !strings.Contains(err.Error(), "GET /devices") || !strings.Contains(err.Error(), "401 UNAUTHENTICATED") {
		t.Errorf("error %v", err)
	}
	if !errors.Is(err, &management.Error{Status: 401}) {
		t.Error("errors.Is by status")
	}
	// The alias prefix works, and a non-JSON error body is kept as text.
	alias := management.New(f.p.HTTPURL()+"/v1/ironflock/", "alice-token")
	if alias.BaseURL() != f.p.HTTPURL()+"/v1/ironflock" {
		t.Errorf("base %s", alias.BaseURL())
	}
	must(t, res(alias.ListDevices(ctx)))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "bad gateway", http.StatusBadGateway)
	}))
	defer srv.Close()
	_, err = management.New(srv.URL, "t", management.WithHTTPClient(srv.Client())).ListApps(ctx)
	if !errors.As(err, &e) || e.Status != 502 || e.Code != "" || e.Message != "bad gateway" {
		t.Errorf("proxy error %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := f.alice.ListApps(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled: %v", err)
	}
}

// TestDeviceLocation: the device record carries the position a device's
// app set, nil before.
func TestDeviceLocation(t *testing.T) {
	f := newFleet(t)
	ctx := testCtx(t)
	d := f.plant.AddDevice("press", platformtest.Key(7))
	in := f.p.Install(d, f.p.AddApp("tracker", ""), platformtest.Dev)
	if got := must(t, res(f.vic.GetDevice(ctx, 7))); got.Location != nil {
		t.Fatalf("before any update: %+v", got.Location)
	}
	c := clienttest.Start(t, in)
	if err := c.SetDeviceLocation(ctx, 13.405, 52.52); err != nil {
		t.Fatal(err)
	}
	stored, ok := d.Location()
	if !ok {
		t.Fatal("the platform stored no location")
	}
	want := &management.Location{Long: 13.405, Lat: 52.52, UpdatedAt: stored.UpdatedAt.Truncate(time.Millisecond)}
	if diff := cmp.Diff(want, must(t, res(f.vic.GetDevice(ctx, 7))).Location); diff != "" {
		t.Errorf("get (-want +got):\n%s", diff)
	}
	list := must(t, res(f.alice.ListDevices(ctx)))
	if len(list) != 1 {
		t.Fatalf("listed %+v", list)
	}
	if diff := cmp.Diff(want, list[0].Location); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}
}
