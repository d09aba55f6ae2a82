// This file holds device groups in Go: Project.AddGroup and the Group
// handle. Apps installed on a group over the management API are installed
// on its members (internal/registry, groups.go).

package platformtest

import "github.com/flockgo/ironflock/platformtest/internal/registry"

// Group is a named set of devices of one project. Apps installed on a
// group over the management API are installed on its members.
type Group struct {
	p *Platform
	m *registry.Group
}

// Key returns the group key.
func (g *Group) Key() int { return g.m.Key }

// Name returns the group name.
func (g *Group) Name() string { return g.m.Name }

// Project returns the project of the group.
func (g *Group) Project() *Project { return g.p.project(g.m.Project) }

// AddGroup adds a device group to the project with the given members
// (devices of the project). Group names are unique per project.
func (pr *Project) AddGroup(name string, devices ...*Device) *Group {
	p := pr.p
	if p.tb != nil {
		p.tb.Helper()
	}
	members := make([]*registry.Device, len(devices))
	for i, d := range devices {
		members[i] = d.m
	}
	var m *registry.Group
	p.provision(func(s *registry.State) (err error) {
		m, err = s.AddGroup(pr.m, name, registry.Spec{}, members)
		return err
	})
	if m == nil {
		return nil
	}
	return handle(p, m, func() *Group { return &Group{p: p, m: m} })
}
