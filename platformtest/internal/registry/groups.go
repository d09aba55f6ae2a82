// This file holds device groups: a named set of devices of one project,
// and the apps installed on a group with their propagation. An app
// installed on a group is installed on every member that does not have
// that app yet (inherited); a device that joins the group inherits the
// group's apps, and one that leaves loses what it inherited from the
// group, unless another of its groups carries the same app, which then
// takes the installation over. An app installed directly on a device is
// never touched by its groups.

package registry

import (
	"cmp"
	"fmt"
	"slices"
)

// Group is a named set of devices of one project.
type Group struct {
	Key     int         `json:"key"`
	Name    string      `json:"name"`
	Project *Project    `json:"-"` // kept by keys, as are the devices and apps
	Devices []*Device   `json:"-"`
	Apps    []*GroupApp `json:"-"` // installed on every member
	Seeded  bool        `json:"seeded,omitempty"`
}

// GroupApp is an app installed on a group.
type GroupApp struct {
	App     *App
	Release *Release
	Stage   string
	Target  string
}

// AddGroup adds a device group to a project. Spec: Key.
func (s *State) AddGroup(pr *Project, name string, spec Spec, devices []*Device) (*Group, error) {
	if err := CheckName("group", name, 63); err != nil {
		return nil, err
	}
	if !s.HasProject(pr) {
		return nil, fmt.Errorf("group %q: project is not on this platform", name)
	}
	for _, g := range s.groups {
		if g.Project == pr && g.Name == name {
			return nil, fmt.Errorf("group %q exists in project %q", name, pr.Name)
		}
	}
	for _, d := range devices {
		if d.Project != pr {
			return nil, fmt.Errorf("group %q: device %q is not in project %q", name, d.Name, pr.Name)
		}
	}
	key, err := s.allocKey("group", spec, func(k int) bool { return s.groups[k] != nil })
	if err != nil {
		return nil, err
	}
	g := &Group{Key: key, Name: name, Project: pr, Devices: slices.Clone(devices)}
	s.groups[key] = g
	s.touchGroup(g)
	return g, nil
}

// Group returns the group with the given key, or nil.
func (s *State) Group(key int) *Group { return s.groups[key] }

// Groups returns every group, ordered by key.
func (s *State) Groups() []*Group { return sortedByKey(s.groups) }

// AppEntry returns the entry of app appKey on g, or nil.
func (g *Group) AppEntry(appKey int) *GroupApp {
	for _, ga := range g.Apps {
		if ga.App.Key == appKey {
			return ga
		}
	}
	return nil
}

// GroupsOf returns the groups d is a member of, ordered by key.
func (s *State) GroupsOf(d *Device) []*Group {
	var out []*Group
	for _, g := range s.groups {
		if slices.Contains(g.Devices, d) {
			out = append(out, g)
		}
	}
	slices.SortFunc(out, func(a, b *Group) int { return cmp.Compare(a.Key, b.Key) })
	return out
}

// AddMember adds d to g and installs the group's apps on it.
func (s *State) AddMember(g *Group, d *Device) {
	if slices.Contains(g.Devices, d) {
		return
	}
	g.Devices = append(g.Devices, d)
	s.touchGroup(g)
	for _, ga := range g.Apps {
		s.inherit(g, ga, d)
	}
}

// RemoveMember removes d from g; d loses what it inherited from g.
func (s *State) RemoveMember(g *Group, d *Device) {
	g.Devices = slices.DeleteFunc(g.Devices, func(m *Device) bool { return m == d })
	s.touchGroup(g)
	for _, ga := range g.Apps {
		s.dropInherited(g, ga.App, d)
	}
}

// AddGroupApp installs an app on g and its members.
func (s *State) AddGroupApp(g *Group, ga *GroupApp) {
	g.Apps = append(g.Apps, ga)
	slices.SortFunc(g.Apps, func(a, b *GroupApp) int { return cmp.Compare(a.App.Key, b.App.Key) })
	s.touchGroup(g)
	for _, d := range g.Devices {
		s.inherit(g, ga, d)
	}
}

// UpdateGroupApp changes the release (when rel is not nil) and the target
// state of an app on g, and on the members that inherit it.
func (s *State) UpdateGroupApp(g *Group, ga *GroupApp, rel *Release, target string) {
	if rel != nil {
		ga.Release = rel
	}
	ga.Target = target
	s.touchGroup(g)
	for _, d := range g.Devices {
		for _, in := range s.InstallsOf(d, ga.App.Key) {
			if in.Group == g {
				s.SetTarget(in, ga.Target, ga.Release)
			}
		}
	}
}

// RemoveGroupApp removes an app from g; its members lose it.
func (s *State) RemoveGroupApp(g *Group, ga *GroupApp) {
	g.Apps = slices.DeleteFunc(g.Apps, func(x *GroupApp) bool { return x == ga })
	s.touchGroup(g)
	for _, d := range g.Devices {
		s.dropInherited(g, ga.App, d)
	}
}

// inherit installs ga on d, inherited from g, unless d has the app
// already (in either stage).
func (s *State) inherit(g *Group, ga *GroupApp, d *Device) {
	if len(s.InstallsOf(d, ga.App.Key)) > 0 {
		return
	}
	in, err := s.Install(d, ga.App, ga.Stage)
	if err != nil { // cannot happen: device and app are checked, the slot is free
		s.log.Error("group install failed", "group", g.Name, "device", d.Name, "err", err)
		return
	}
	in.Group = g
	s.SetTarget(in, ga.Target, ga.Release)
}

// dropInherited removes from d the installation of app a inherited from
// g. Another group of d carrying a takes it over instead: in place when
// the stage is the same, else by a fresh install.
func (s *State) dropInherited(g *Group, a *App, d *Device) {
	for _, in := range s.InstallsOf(d, a.Key) {
		if in.Group != g {
			continue
		}
		var heir *Group
		var hga *GroupApp
		for _, g2 := range s.GroupsOf(d) {
			if ga2 := g2.AppEntry(a.Key); g2 != g && ga2 != nil {
				heir, hga = g2, ga2
				break
			}
		}
		if heir != nil && hga.Stage == in.Stage {
			in.Group = heir
			s.SetTarget(in, hga.Target, hga.Release)
			continue
		}
		s.RemoveInstall(in)
		if heir != nil {
			s.inherit(heir, hga, d)
		}
	}
}
