// This file holds device groups as the management API uses them: the Go
// handle Group and Project.AddGroup, the apps installed on a group, and
// their propagation. An app installed on a group is installed on every
// member that does not have that app yet (inherited); a device that joins
// the group inherits the group's apps, and one that leaves loses what it
// inherited from the group, unless another of its groups carries the same
// app, which then takes the installation over. An app installed directly
// on a device is never touched by its groups.

package platformtest

import (
	"cmp"
	"slices"
)

// Group is a named set of devices of one project. Apps installed on a
// group over the management API are installed on its members.
type Group struct {
	g *group
}

// Key returns the group key.
func (g *Group) Key() int { return g.g.key }

// Name returns the group name.
func (g *Group) Name() string { return g.g.name }

// Project returns the project of the group.
func (g *Group) Project() *Project { return g.g.project }

// AddGroup adds a device group to the project with the given members
// (devices of the project). Group names are unique per project.
func (pr *Project) AddGroup(name string, devices ...*Device) *Group {
	p := pr.p
	p.mu.Lock()
	g, err := p.addGroupLocked(pr, name, provisionSpec{}, devices)
	p.mu.Unlock()
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
		return nil
	}
	return &Group{g: g}
}

// groupApp is an app installed on a group.
type groupApp struct {
	app     *App
	release *release
	stage   Stage
	target  AppState
}

// appEntry returns the entry of app appKey on g, or nil.
func (g *group) appEntry(appKey int) *groupApp {
	for _, ga := range g.apps {
		if ga.app.key == appKey {
			return ga
		}
	}
	return nil
}

// groupsOfLocked returns the groups d is a member of, ordered by key.
func (p *Platform) groupsOfLocked(d *Device) []*group {
	var out []*group
	for _, g := range p.st.groups {
		if slices.Contains(g.devices, d) {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b *group) int { return cmp.Compare(a.key, b.key) })
	return out
}

// addMemberLocked adds d to g and installs the group's apps on it.
func (p *Platform) addMemberLocked(g *group, d *Device) {
	if slices.Contains(g.devices, d) {
		return
	}
	g.devices = append(g.devices, d)
	for _, ga := range g.apps {
		p.inheritLocked(g, ga, d)
	}
}

// removeMemberLocked removes d from g; d loses what it inherited from g.
func (p *Platform) removeMemberLocked(g *group, d *Device) {
	g.devices = slices.DeleteFunc(g.devices, func(m *Device) bool { return m == d })
	for _, ga := range g.apps {
		p.dropInheritedLocked(g, ga.app, d)
	}
}

// addGroupAppLocked installs an app on g and its members.
func (p *Platform) addGroupAppLocked(g *group, ga *groupApp) {
	g.apps = append(g.apps, ga)
	slices.SortFunc(g.apps, func(a, b *groupApp) int { return cmp.Compare(a.app.key, b.app.key) })
	for _, d := range g.devices {
		p.inheritLocked(g, ga, d)
	}
}

// updateGroupAppLocked changes the release (when rel is not nil) and the
// target state of an app on g, and on the members that inherit it.
func (p *Platform) updateGroupAppLocked(g *group, ga *groupApp, rel *release, target AppState) {
	if rel != nil {
		ga.release = rel
	}
	ga.target = target
	for _, d := range g.devices {
		for _, in := range p.installsOfLocked(d, ga.app.key) {
			if in.group == g {
				in.setTargetLocked(ga.target, ga.release)
			}
		}
	}
}

// removeGroupAppLocked removes an app from g; its members lose it.
func (p *Platform) removeGroupAppLocked(g *group, ga *groupApp) {
	g.apps = slices.DeleteFunc(g.apps, func(x *groupApp) bool { return x == ga })
	for _, d := range g.devices {
		p.dropInheritedLocked(g, ga.app, d)
	}
}

// inheritLocked installs ga on d, inherited from g, unless d has the app
// already (in either stage).
func (p *Platform) inheritLocked(g *group, ga *groupApp, d *Device) {
	if len(p.installsOfLocked(d, ga.app.key)) > 0 {
		return
	}
	in, err := p.installLocked(d, ga.app, ga.stage)
	if err != nil { // cannot happen: device and app are checked, the slot is free
		p.log.Error("group install failed", "group", g.name, "device", d.name, "err", err)
		return
	}
	in.group = g
	in.setTargetLocked(ga.target, ga.release)
}

// dropInheritedLocked removes from d the installation of app a inherited
// from g. Another group of d carrying a takes it over instead: in place
// when the stage is the same, else by a fresh install.
func (p *Platform) dropInheritedLocked(g *group, a *App, d *Device) {
	for _, in := range p.installsOfLocked(d, a.key) {
		if in.group != g {
			continue
		}
		var heir *group
		var hga *groupApp
		for _, g2 := range p.groupsOfLocked(d) {
			if ga2 := g2.appEntry(a.key); g2 != g && ga2 != nil {
				heir, hga = g2, ga2
				break
			}
		}
		if heir != nil && hga.stage == in.stage {
			in.group = heir
			in.setTargetLocked(hga.target, hga.release)
			continue
		}
		p.removeInstallLocked(in)
		if heir != nil {
			p.inheritLocked(heir, hga, d)
		}
	}
}
