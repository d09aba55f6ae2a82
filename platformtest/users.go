// This file holds the users of the management REST API in Go: AddUser,
// the project roles and the User handle.

package platformtest

import (
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Project roles of a management API user: an admin may change the
// project's devices, device apps and groups; a viewer may only read them.
const (
	RoleAdmin  = wire.RoleAdmin
	RoleViewer = wire.RoleViewer
)

// User is a user of the management REST API: a bearer token and a role
// (RoleAdmin or RoleViewer) in some projects.
type User struct {
	m *registry.User
}

// Name returns the user's name.
func (u *User) Name() string { return u.m.Name }

// Token returns the user's bearer token.
func (u *User) Token() string { return u.m.Token }

// AddUser adds a user of the management REST API with a bearer token and
// a role per project (RoleAdmin or RoleViewer). Names and tokens are
// unique.
func (p *Platform) AddUser(name, token string, roles map[*Project]string) *User {
	if p.tb != nil {
		p.tb.Helper()
	}
	byModel := map[*registry.Project]string{}
	for pr, role := range roles {
		byModel[pr.m] = role
	}
	var m *registry.User
	p.provision(func(s *registry.State) (err error) {
		m, err = s.AddUser(name, token, byModel)
		return err
	})
	if m == nil {
		return nil
	}
	return handle(p, m, func() *User { return &User{m: m} })
}
