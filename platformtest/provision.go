// This file holds what every provisioning call shares: the Stage type, the
// options of the Add* methods, and the Go handles of the entities of the
// platform's registry (internal/registry), one handle per entity so that
// handles compare equal.

package platformtest

import (
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Stage is the stage an app is installed in.
type Stage string

// The two stages of an installation.
const (
	Dev  Stage = wire.StageDev
	Prod Stage = wire.StageProd
)

// ProvisionOption adjusts one AddProject, AddDevice or AddApp call.
type ProvisionOption func(*registry.Spec)

// Key sets the key (swarm key, device key or app key) instead of the next
// free one. Keys must be positive and unique per kind.
func Key(n int) ProvisionOption {
	return func(s *registry.Spec) { s.Key, s.KeySet = n, true }
}

// Serial sets a device's serial number instead of a random UUID.
func Serial(serial string) ProvisionOption {
	return func(s *registry.Spec) { s.Serial, s.SerialSet = serial, true }
}

// InProject puts a device in pr instead of the project "default".
func InProject(pr *Project) ProvisionOption {
	return func(s *registry.Spec) { s.Project = pr.m }
}

func specOf(opts []ProvisionOption) registry.Spec {
	var s registry.Spec
	for _, o := range opts {
		o(&s)
	}
	return s
}

// handle returns the one handle of registry entity m, made by mk on first
// use; nil for a nil m.
func handle[M any, H any](p *Platform, m *M, mk func() *H) *H {
	if m == nil {
		return nil
	}
	if h, ok := p.handles.Load(m); ok {
		return h.(*H)
	}
	h, _ := p.handles.LoadOrStore(m, mk())
	return h.(*H)
}

// provision runs f under the registry's lock and fails the test (panics
// on a platform made by Start) when it returns an error.
func (p *Platform) provision(f func(s *registry.State) error) {
	if err := p.reg.Update(f); err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
	}
}
