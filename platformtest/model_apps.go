// This file holds what the management API adds to apps: creation by a
// user (who owns the app; names are unique per owner), deletion, whether
// an app is in use, and the Go lookup AppByKey.

package platformtest

import (
	"strings"
)

// createAppLocked adds an app owned by u. The caller has checked the name.
func (p *Platform) createAppLocked(u *user, name, description string) *App {
	key, _ := p.allocKeyLocked("app", provisionSpec{}, func(k int) bool { return p.st.apps[k] != nil })
	a := &App{p: p, key: key, name: name, description: description, owner: u, created: p.clock.Now()}
	p.st.apps[key] = a
	p.log.Info("app created", "app", name, "key", key, "owner", u.name)
	return a
}

// ownedAppNamedLocked returns the app of owner u named name (any case),
// or nil.
func (p *Platform) ownedAppNamedLocked(u *user, name string) *App {
	for _, a := range p.st.apps {
		if a.owner == u && strings.EqualFold(a.name, name) {
			return a
		}
	}
	return nil
}

// appInUseLocked reports whether a is installed on a device or a group.
func (p *Platform) appInUseLocked(a *App) bool {
	for _, in := range p.st.installs {
		if in.app == a {
			return true
		}
	}
	for _, g := range p.st.groups {
		for _, ga := range g.apps {
			if ga.app == a {
				return true
			}
		}
	}
	return false
}

// deleteAppLocked removes an app that is not in use, with its releases; a
// build in progress is cancelled. Its realms stay.
func (p *Platform) deleteAppLocked(a *App) {
	for _, r := range p.releasesOfLocked(a) {
		if r.status == releaseBuilding {
			p.cancelBuildLocked(r)
		}
		delete(p.st.releases, r.key)
	}
	delete(p.st.apps, a.key)
	p.log.Info("app deleted", "app", a.name, "key", a.key)
}

// AppByKey returns the app with the given key, nil when there is none (an
// app created over the management API, for one).
func (p *Platform) AppByKey(key int) *App {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.apps[key]
}
