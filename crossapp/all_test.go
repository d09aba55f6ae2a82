// This file tests List and ConnectAll: the providers of the project for a
// consumer with the wildcard grant, providers without a data backend in
// the stage skipped, and a provider that fails to open, reported or
// returned.

package crossapp_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
)

// wildcardProject adds to newProject the providers grid (key 50, DEV, its
// realm withheld: it cannot be joined) and archive (key 90, PROD only),
// and grants all the wildcard.
func wildcardProject(t *testing.T) (*project, *platformtest.Installation) {
	t.Helper()
	f := newProject(t)
	grid := f.p.AddApp("grid", weatherTemplate, platformtest.Key(50))
	archive := f.p.AddApp("archive", weatherTemplate, platformtest.Key(90))
	substation := f.pr.AddDevice("substation", platformtest.Key(8))
	gridIn := f.p.Install(substation, grid, platformtest.Dev)
	f.p.Install(substation, archive, platformtest.Prod)
	f.p.WithholdRealm(gridIn.Realm())
	f.p.Grant(f.pr, f.all, platformtest.Wildcard)
	return f, gridIn
}

// TestList: every other app of the project that shares something, in
// lower case, with its catalog per stage.
func TestList(t *testing.T) {
	leakcheck.Check(t)
	f, _ := wildcardProject(t)
	_, apps := consumer(t, f.allIn)
	list, err := apps.List(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string][]client.Stage{}
	var names []string
	for _, info := range list {
		names = append(names, info.App)
		for st := range info.Stages {
			stages[info.App] = append(stages[info.App], st)
		}
	}
	if diff := cmp.Diff([]string{"dash", "grid", "weather", "archive"}, names); diff != "" {
		t.Errorf("providers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string][]client.Stage{"dash": {client.Dev}, "grid": {client.Dev}, "weather": {client.Dev}, "archive": {client.Prod}}, stages); diff != "" {
		t.Errorf("stages (-want +got):\n%s", diff)
	}
	weather := list[2]
	if weather.AppKey != 77 || len(weather.Stages[client.Dev].Tables) != 1 || weather.Stages[client.Dev].Transforms[0].Name != "hourly" {
		t.Errorf("weather %+v", weather)
	}
	if got := countSessions(f.p, f.station.Realm()); got != 0 {
		t.Errorf("List opened %d sessions", got)
	}
}

// gridTimeout is the connect timeout of the ConnectAll tests: grid never
// opens and fails when it ends, while the other providers must open
// within it. They take milliseconds; the margin is for a loaded machine.
const gridTimeout = 4 * time.Second

// TestConnectAllReportsFailures: by default a provider that fails to open
// goes to OnError and is left out; the provider with no data backend in
// the stage is skipped without an error.
func TestConnectAllReportsFailures(t *testing.T) {
	leakcheck.Check(t)
	f, gridIn := wildcardProject(t)
	_, apps := consumer(t, f.allIn, crossapp.WithConnectTimeout(gridTimeout))
	failed := newErrorsSeen()
	handles, err := apps.ConnectAll(ctxT(t), failed.option())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, h := range handles {
		names = append(names, h.App())
	}
	if diff := cmp.Diff([]string{"dash", "weather"}, names); diff != "" {
		t.Errorf("handles (-want +got):\n%s", diff)
	}
	err = failed.next(t)
	var oe *client.OpError
	if !errors.Is(err, client.ErrNotConnected) || !errors.As(err, &oe) || oe.Op != "crossapp.ConnectAll" || oe.URI != "grid" {
		t.Errorf("OnError got %v", err)
	}
	select {
	case err := <-failed:
		t.Errorf("OnError called again: %v", err)
	default:
	}
	if got := countSessions(f.p, gridIn.Realm()); got != 0 {
		t.Errorf("%d sessions on grid's realm", got)
	}
}

// TestConnectAllStopsOnError: with ContinueOnError(false) the first
// failure is returned; the handles that opened stay cached.
func TestConnectAllStopsOnError(t *testing.T) {
	leakcheck.Check(t)
	f, _ := wildcardProject(t)
	_, apps := consumer(t, f.allIn, crossapp.WithConnectTimeout(gridTimeout))
	ctx := ctxT(t)
	failed := newErrorsSeen()
	handles, err := apps.ConnectAll(ctx, crossapp.ContinueOnError(false), failed.option())
	var oe *client.OpError
	if handles != nil || !errors.Is(err, client.ErrNotConnected) || !errors.As(err, &oe) || oe.URI != "grid" {
		t.Fatalf("ConnectAll: %v, %v", handles, err)
	}
	select {
	case err := <-failed:
		t.Errorf("OnError called for a returned failure: %v", err)
	default:
	}
	resolves := countCalls(f.p, wire.AppAccessResolve)
	w, err := apps.Connect(ctx, "Weather")
	if err != nil || w.App() != "weather" {
		t.Fatalf("Connect after ConnectAll: %v, %v", w, err)
	}
	if countCalls(f.p, wire.AppAccessResolve) != resolves || countSessions(f.p, f.station.Realm()) != 1 {
		t.Error("Connect did not return the handle ConnectAll opened")
	}
}
