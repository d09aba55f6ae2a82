// This file holds the users of the management REST API: a bearer token
// and a role (admin or viewer) per project, and the lookups the REST layer
// makes (bearer token to user, a user's role in a project, which apps a
// user may see).

package registry

import (
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// User is a management API user.
type User struct {
	Name     string         `json:"name"`
	Token    string         `json:"token"`
	Projects map[int]string `json:"projects"` // swarm key → wire.RoleAdmin or wire.RoleViewer
	Seeded   bool           `json:"seeded,omitempty"`
}

// AddUser adds a user with a bearer token and project roles.
func (s *State) AddUser(name, token string, roles map[*Project]string) (*User, error) {
	if err := CheckName("user", name, 63); err != nil {
		return nil, err
	}
	if token == "" {
		return nil, fmt.Errorf("user %q: empty token", name)
	}
	if s.users[name] != nil {
		return nil, fmt.Errorf("user %q exists", name)
	}
	for _, u := range s.users {
		if u.Token == token {
			return nil, fmt.Errorf("user %q: token is taken by user %q", name, u.Name)
		}
	}
	u := &User{Name: name, Token: token, Projects: map[int]string{}}
	for pr, role := range roles {
		if role != wire.RoleAdmin && role != wire.RoleViewer {
			return nil, fmt.Errorf("user %q: role %q in project %q: want admin or viewer", name, role, pr.Name)
		}
		if !s.HasProject(pr) {
			return nil, fmt.Errorf("user %q: project %q is not on this platform", name, pr.Name)
		}
		u.Projects[pr.Key] = role
	}
	s.users[name] = u
	s.touchUser(u)
	return u, nil
}

// Users returns every user, ordered by name.
func (s *State) Users() []*User {
	out := make([]*User, 0, len(s.users))
	for _, u := range s.users {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b *User) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// User returns the user named name, or nil.
func (s *State) User(name string) *User { return s.users[name] }

// UserByToken returns the user holding token, or nil.
func (s *State) UserByToken(token string) *User {
	if token == "" {
		return nil
	}
	for _, u := range s.users {
		if subtle.ConstantTimeCompare([]byte(u.Token), []byte(token)) == 1 {
			return u
		}
	}
	return nil
}

// Role returns u's role in project pr, "" when u is not a member.
func (s *State) Role(u *User, pr *Project) string {
	if u == nil || !s.HasProject(pr) {
		return ""
	}
	return u.Projects[pr.Key]
}

// AppVisible reports whether u may see app a: u owns it or it is
// released.
func (s *State) AppVisible(u *User, a *App) bool {
	return a.Owner == u || s.Released(a)
}
