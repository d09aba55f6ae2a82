package rest_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/rest"
	"github.com/flockgo/ironflock/platformtest/internal/testhooks"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// restSnapshot is the state the management API can change, as text.
type restSnapshot struct {
	Devices, Apps, Releases, Groups, Installs []string
}

func snapshotREST(p *platformtest.Platform) restSnapshot {
	var s restSnapshot
	testhooks.Registry(p).Do(func(st *registry.State) {
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
	p                                   *platformtest.Platform
	alpha, beta                         *platformtest.Project
	d1, d2, d3                          *platformtest.Device
	seeded, mine, other, draft, secret  int // app keys
	seededRel, rel1, building, otherRel int // release keys
}

func newRESTWorld(t *testing.T) *restWorld {
	t.Helper()
	p := platformtest.New(t, platformtest.WithBuildDuration(time.Hour))
	w := &restWorld{p: p}
	w.alpha = p.AddProject("alpha", platformtest.Key(1))
	w.beta = p.AddProject("beta", platformtest.Key(2))
	w.d1 = w.alpha.AddDevice("d1", platformtest.Key(1))
	w.d2 = w.alpha.AddDevice("d2", platformtest.Key(2))
	w.d3 = w.beta.AddDevice("d3", platformtest.Key(3))
	w.alpha.AddGroup("g1", w.d1)
	w.beta.AddGroup("g2", w.d3)
	p.AddUser("alice", worldtest.AliceToken, map[*platformtest.Project]string{w.alpha: platformtest.RoleAdmin})
	p.AddUser("vic", worldtest.VicToken, map[*platformtest.Project]string{w.alpha: platformtest.RoleViewer})
	p.AddUser("bob", worldtest.BobToken, map[*platformtest.Project]string{w.beta: platformtest.RoleAdmin})
	seeded := p.AddApp("seeded", "")
	w.seeded = seeded.Key()
	p.Install(w.d1, seeded, platformtest.Dev)
	w.seededRel = p.InstallationOf(1, w.seeded, platformtest.Dev).ReleaseKey()

	var a rest.App
	var r rest.Release
	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"mine"}`, 201, &a)
	w.mine = a.AppKey
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", w.mine), worldtest.AliceToken, `{"version":"1.0.0"}`, 202, &r)
	w.rel1 = r.ReleaseKey
	p.Clock().Advance(time.Hour)
	worldtest.RESTOK(t, p, "POST", "/swarms/1/groups/1/apps", worldtest.AliceToken, fmt.Sprintf(`{"app_key":%d,"stage":"DEV"}`, w.mine), 201, nil)

	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"other"}`, 201, &a)
	w.other = a.AppKey
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", w.other), worldtest.AliceToken, `{"version":"1.0.0"}`, 202, &r)
	w.otherRel = r.ReleaseKey
	p.Clock().Advance(time.Hour)
	worldtest.RESTOK(t, p, "GET", fmt.Sprintf("/apps/%d/releases/%d?swarm_key=1", w.other, w.otherRel), worldtest.AliceToken, "", 200, &r)
	if r.Status != wire.ReleaseReady {
		t.Fatalf("release of other: %+v", r)
	}
	worldtest.RESTOK(t, p, "POST", fmt.Sprintf("/apps/%d/releases?wait=false", w.mine), worldtest.AliceToken, `{"version":"2.0.0"}`, 202, &r)
	w.building = r.ReleaseKey

	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.AliceToken, `{"name":"draft"}`, 201, &a)
	w.draft = a.AppKey
	worldtest.RESTOK(t, p, "POST", "/apps", worldtest.BobToken, `{"name":"secret"}`, 201, &a)
	w.secret = a.AppKey
	return w
}
