// This file holds the users of the management REST API in Go: AddUser,
// the project roles, and the lookups the REST layer makes (bearer token to
// user, a user's role in a project, what a user may see and change).

package platformtest

import "crypto/subtle"

// Project roles of a management API user: an admin may change the
// project's devices, device apps and groups; a viewer may only read them.
const (
	RoleAdmin  = roleAdmin
	RoleViewer = roleViewer
)

// User is a user of the management REST API: a bearer token and a role
// (RoleAdmin or RoleViewer) in some projects.
type User struct {
	u *user
}

// Name returns the user's name.
func (u *User) Name() string { return u.u.name }

// Token returns the user's bearer token.
func (u *User) Token() string { return u.u.token }

// AddUser adds a user of the management REST API with a bearer token and
// a role per project (RoleAdmin or RoleViewer). Names and tokens are
// unique.
func (p *Platform) AddUser(name, token string, roles map[*Project]string) *User {
	p.mu.Lock()
	u, err := p.addUserLocked(name, token, roles)
	p.mu.Unlock()
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
		return nil
	}
	return &User{u: u}
}

// userByTokenLocked returns the user holding token, or nil.
func (p *Platform) userByTokenLocked(token string) *user {
	if token == "" {
		return nil
	}
	for _, u := range p.st.users {
		if subtle.ConstantTimeCompare([]byte(u.token), []byte(token)) == 1 {
			return u
		}
	}
	return nil
}

// roleLocked returns u's role in project pr, "" when u is not a member.
func (p *Platform) roleLocked(u *user, pr *Project) string {
	if u == nil || pr == nil || p.st.projects[pr.key] != pr {
		return ""
	}
	return u.projects[pr.key]
}

// appVisibleLocked reports whether u may see app a: u owns it or it is
// released.
func (p *Platform) appVisibleLocked(u *user, a *App) bool {
	return a.owner == u || p.releasedLocked(a)
}
