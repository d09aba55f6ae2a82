// This file holds the changes the reconciliation with flockd's
// configuration makes beyond the ones the management API makes: removing
// a project, a group, an app or a user with everything that hangs on it,
// forgetting a realm, and setting what the configuration fixes on an entity
// that exists (a serial, a token, roles, members, templates), and marking
// entities as the configuration's (Seeded).

package registry

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// RemoveGroup removes g; its members lose what they inherited from it.
func (s *State) RemoveGroup(g *Group) {
	for _, ga := range slices.Clone(g.Apps) {
		s.RemoveGroupApp(g, ga)
	}
	delete(s.groups, g.Key)
	s.touchGroup(g)
	s.log.Info("group deleted", "group", g.Name, "key", g.Key)
}

// RemoveApp removes a from every group and device, then deletes it with
// its releases and the grants that name it. Its realms stay (ForgetRealm).
func (s *State) RemoveApp(a *App) {
	for _, g := range s.Groups() {
		if ga := g.AppEntry(a.Key); ga != nil {
			s.RemoveGroupApp(g, ga)
		}
	}
	for _, in := range s.InstallsOfApp(a) {
		s.RemoveInstall(in)
	}
	s.DeleteApp(a)
}

// InstallsOfApp returns the installations of a, ordered by device key
// and stage.
func (s *State) InstallsOfApp(a *App) []*Installation {
	var out []*Installation
	for _, d := range s.Devices() {
		out = append(out, s.InstallsOf(d, a.Key)...)
	}
	return out
}

// RemoveProject removes pr with its groups, its devices (and their
// installations), its grants and the roles users hold in it. Its realms
// stay (ForgetRealm).
func (s *State) RemoveProject(pr *Project) {
	for _, g := range s.Groups() {
		if g.Project == pr {
			s.RemoveGroup(g)
		}
	}
	for _, d := range s.Devices() {
		if d.Project == pr {
			s.DeleteDevice(d)
		}
	}
	for k := range s.grants {
		if k.swarm == pr.Key {
			delete(s.grants, k)
			s.touchGrant(k)
		}
	}
	for _, u := range s.users {
		if _, ok := u.Projects[pr.Key]; ok {
			delete(u.Projects, pr.Key)
			s.touchUser(u)
		}
	}
	delete(s.projects, pr.Key)
	s.touchProject(pr)
	s.log.Info("project deleted", "project", pr.Name, "key", pr.Key)
}

// RemoveUser removes u. The apps u created are owned by no one after; they
// are returned.
func (s *State) RemoveUser(u *User) []*App {
	var orphans []*App
	for _, a := range s.Apps() {
		if a.Owner == u {
			a.Owner = nil
			s.touchApp(a)
			orphans = append(orphans, a)
		}
	}
	delete(s.users, u.Name)
	s.touchUser(u)
	return orphans
}

// RealmInUse reports whether an installation joins realm name.
func (s *State) RealmInUse(name string) bool { return len(s.byRealm[name]) > 0 }

// ForgetRealm removes a provisioned realm: the router takes it down at
// its next reconciliation. The services' data of the realm is theirs to
// forget.
func (s *State) ForgetRealm(name string) {
	if ri, ok := s.realms[name]; ok {
		delete(s.realms, name)
		s.touchRealm(ri)
	}
}

// SetSerial gives d another serial number: its per-app credentials change
// with it.
func (s *State) SetSerial(d *Device, serial string) error {
	if !SerialPattern.MatchString(serial) {
		return fmt.Errorf("device %q: serial %q must be non-empty without spaces", d.Name, serial)
	}
	if o := s.DeviceBySerial(serial); o != nil && o != d {
		return fmt.Errorf("device %q: serial %q is taken by device %q", d.Name, serial, o.Name)
	}
	if s.bySerial[d.Serial] == d {
		delete(s.bySerial, d.Serial)
	}
	d.Serial = serial
	s.bySerial[serial] = d
	s.touchDevice(d)
	return nil
}

// SetToken gives u another bearer token.
func (s *State) SetToken(u *User, token string) error {
	if token == "" {
		return fmt.Errorf("user %q: empty token", u.Name)
	}
	for _, o := range s.users {
		if o != u && o.Token == token {
			return fmt.Errorf("user %q: token is taken by user %q", u.Name, o.Name)
		}
	}
	u.Token = token
	s.touchUser(u)
	return nil
}

// SetRoles replaces u's project roles.
func (s *State) SetRoles(u *User, roles map[*Project]string) error {
	set := map[int]string{}
	for pr, role := range roles {
		if !s.HasProject(pr) {
			return fmt.Errorf("user %q: project %q is not on this platform", u.Name, pr.Name)
		}
		set[pr.Key] = role
	}
	if !maps.Equal(set, u.Projects) {
		u.Projects = set
		s.touchUser(u)
	}
	return nil
}

// SetMembers makes devices the members of g, adding and removing members
// (with what they inherit) as needed.
func (s *State) SetMembers(g *Group, devices []*Device) {
	for _, d := range slices.Clone(g.Devices) {
		if !slices.Contains(devices, d) {
			s.RemoveMember(g, d)
		}
	}
	for _, d := range devices {
		s.AddMember(g, d)
	}
}

// SetSeeded marks an entity (a *Project, *Device, *App, *Group,
// *Installation or *User) as provisioned from a seed, or not: the
// reconciliation removes a seeded entity its seed no longer lists, and
// leaves the others (made in Go or over the management API) alone.
func (s *State) SetSeeded(entity any, seeded bool) {
	var mark *bool
	switch e := entity.(type) {
	case *Project:
		mark = &e.Seeded
	case *Device:
		mark = &e.Seeded
	case *App:
		mark = &e.Seeded
	case *Group:
		mark = &e.Seeded
	case *Installation:
		mark = &e.Seeded
	case *User:
		mark = &e.Seeded
	default:
		panic(fmt.Sprintf("registry: SetSeeded of %T", entity))
	}
	if *mark == seeded {
		return
	}
	*mark = seeded
	switch e := entity.(type) {
	case *Project:
		s.touchProject(e)
	case *Device:
		s.touchDevice(e)
	case *App:
		s.touchApp(e)
	case *Group:
		s.touchGroup(e)
	case *Installation:
		s.touchInstall(e)
	case *User:
		s.touchUser(e)
	}
}

// SeededGrant marks the grant of consumer on provider in pr as the
// seed's; it reports whether there is such a grant.
func (s *State) SeededGrant(pr *Project, consumer *App, provider string) bool {
	k := grantKey{pr.Key, consumer.Key, strings.ToLower(provider)}
	seeded, ok := s.grants[k]
	if ok && !seeded {
		s.grants[k] = true
		s.touchGrant(k)
	}
	return ok
}

// SeededGrants returns the grants marked as a seed's, ordered.
func (s *State) SeededGrants() []Grant {
	var out []Grant
	for _, g := range s.Grants() {
		if s.grants[grantKey{g.Project.Key, g.Consumer.Key, g.Provider}] {
			out = append(out, g)
		}
	}
	return out
}

// Retemplate gives a a new READY release holding the given templates,
// versioned after its newest one, and moves the installations (on devices
// and groups) of its previous newest READY release to it.
func (s *State) Retemplate(a *App, data, ai string) *Release {
	prev := s.NewestReady(a)
	version := initialVersion
	if prev != nil {
		version = nextVersion(prev.Version, s.ReleasesOf(a))
	}
	now := s.Now()
	r := s.newRelease(a, version, data, ai, now)
	r.Status, r.outcome, r.FinishAt, r.Finished = ReleaseReady, ReleaseReady, now, now
	close(r.Done)
	s.followNewestReady(a)
	if prev == nil {
		return r
	}
	for _, in := range s.InstallsOfApp(a) {
		if in.Release == prev {
			in.Release = r
			s.touchInstall(in)
		}
	}
	for _, g := range s.Groups() {
		if ga := g.AppEntry(a.Key); ga != nil && ga.Release == prev {
			ga.Release = r
			s.touchGroup(g)
		}
	}
	return r
}

// nextVersion returns v with its last number raised (1.0.0 → 1.0.1), or
// v.1 when it ends in no number, skipping versions taken.
func nextVersion(v string, taken []*Release) string {
	for {
		i := strings.LastIndexByte(v, '.')
		if n, err := strconv.Atoi(v[i+1:]); err == nil && n >= 0 {
			v = v[:i+1] + strconv.Itoa(n+1)
		} else {
			v += ".1"
		}
		if !slices.ContainsFunc(taken, func(r *Release) bool { return r.Version == v }) {
			return v
		}
	}
}
