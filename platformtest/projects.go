// This file holds projects (swarms) in Go: AddProject and the Project
// handle.

package platformtest

import "github.com/flockgo/ironflock/platformtest/internal/registry"

// Project is a project (swarm) holding devices.
type Project struct {
	p *Platform
	m *registry.Project
}

func (p *Platform) project(m *registry.Project) *Project {
	return handle(p, m, func() *Project { return &Project{p: p, m: m} })
}

// Key returns the project's swarm key.
func (pr *Project) Key() int { return pr.m.Key }

// Name returns the project's name.
func (pr *Project) Name() string { return pr.m.Name }

// AddProject adds a project (swarm). Options: Key.
func (p *Platform) AddProject(name string, opts ...ProvisionOption) *Project {
	if p.tb != nil {
		p.tb.Helper()
	}
	var m *registry.Project
	p.provision(func(s *registry.State) (err error) {
		m, err = s.AddProject(name, specOf(opts))
		return err
	})
	return p.project(m)
}

// AddDevice adds a device to this project; see Platform.AddDevice.
func (pr *Project) AddDevice(name string, opts ...ProvisionOption) *Device {
	if pr.p.tb != nil {
		pr.p.tb.Helper()
	}
	return pr.p.AddDevice(name, append(opts, InProject(pr))...)
}
