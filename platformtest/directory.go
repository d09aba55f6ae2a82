// This file holds the parts of the provisioning model only the management
// REST API uses: device groups and users with bearer tokens and project
// roles. The REST layer (a later issue) reads them; seeds fill them.

package platformtest

import (
	"fmt"
	"slices"
)

// Project roles of a management API user.
const (
	roleAdmin  = "admin"
	roleViewer = "viewer"
)

// group is a named set of devices of one project.
type group struct {
	key     int
	name    string
	project *Project
	devices []*Device
	apps    []*groupApp // installed on every member (model_groups.go)
}

// user is a management API user.
type user struct {
	name     string
	token    string
	projects map[int]string // swarm key → roleAdmin or roleViewer
}

// addGroupLocked adds a device group to a project. Options: Key.
func (p *Platform) addGroupLocked(pr *Project, name string, spec provisionSpec, devices []*Device) (*group, error) {
	if err := checkName("group", name, 63); err != nil {
		return nil, err
	}
	if pr == nil || p.st.projects[pr.key] != pr {
		return nil, fmt.Errorf("group %q: project is not on this platform", name)
	}
	for _, g := range p.st.groups {
		if g.project == pr && g.name == name {
			return nil, fmt.Errorf("group %q exists in project %q", name, pr.name)
		}
	}
	for _, d := range devices {
		if d.project != pr {
			return nil, fmt.Errorf("group %q: device %q is not in project %q", name, d.name, pr.name)
		}
	}
	key, err := p.allocKeyLocked("group", spec, func(k int) bool { return p.st.groups[k] != nil })
	if err != nil {
		return nil, err
	}
	g := &group{key: key, name: name, project: pr, devices: slices.Clone(devices)}
	p.st.groups[key] = g
	return g, nil
}

// addUserLocked adds a user with a bearer token and project roles.
func (p *Platform) addUserLocked(name, token string, roles map[*Project]string) (*user, error) {
	if err := checkName("user", name, 63); err != nil {
		return nil, err
	}
	if token == "" {
		return nil, fmt.Errorf("user %q: empty token", name)
	}
	if p.st.users[name] != nil {
		return nil, fmt.Errorf("user %q exists", name)
	}
	for _, u := range p.st.users {
		if u.token == token {
			return nil, fmt.Errorf("user %q: token is taken by user %q", name, u.name)
		}
	}
	u := &user{name: name, token: token, projects: map[int]string{}}
	for pr, role := range roles {
		if role != roleAdmin && role != roleViewer {
			return nil, fmt.Errorf("user %q: role %q in project %q: want admin or viewer", name, role, pr.name)
		}
		if p.st.projects[pr.key] != pr {
			return nil, fmt.Errorf("user %q: project %q is not on this platform", name, pr.name)
		}
		u.projects[pr.key] = role
	}
	p.st.users[name] = u
	return u, nil
}
