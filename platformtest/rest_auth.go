// This file holds authentication and scope of the management REST API
// (PLATFORM.md §3): the bearer token names a user; a user sees the
// projects they are a member of with their devices and groups, and the
// apps they own or that are released. A resource out of sight is 404,
// never 403; a visible one the user may not change is 403. It serves no
// route of its own; the locking helpers of the handlers live here too.

package platformtest

import (
	"net/http"
	"strings"
)

// authenticate returns the user of the request's bearer token (401).
func (p *Platform) authenticate(r *http.Request) (*user, *apiError) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, errorf(http.StatusUnauthorized, codeUnauthenticated, "missing Authorization: Bearer <token>")
	}
	scheme, token, _ := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, errorf(http.StatusUnauthorized, codeUnauthenticated, "the Authorization header must be Bearer <token>")
	}
	p.mu.Lock()
	u := p.userByTokenLocked(token)
	p.mu.Unlock()
	if u == nil {
		return nil, errorf(http.StatusUnauthorized, codeUnauthenticated, "unknown bearer token")
	}
	return u, nil
}

// projectLocked returns the project named by a swarm key the user can see
// (404).
func (p *Platform) projectLocked(u *user, swarm int) (*Project, *apiError) {
	pr := p.st.projects[swarm]
	if pr == nil || p.roleLocked(u, pr) == "" {
		return nil, notFound("project %d not found", swarm)
	}
	return pr, nil
}

// pathProjectLocked is projectLocked for the path parameter swarm_key.
func (p *Platform) pathProjectLocked(c *restCall) (*Project, *apiError) {
	k, err := pathKey(c.r, "swarm_key", "project")
	if err != nil {
		return nil, err
	}
	return p.projectLocked(c.u, k)
}

// pathDeviceLocked returns the device of the path parameter device_key,
// when the user can see it (404); with pr set, it must be in pr.
func (p *Platform) pathDeviceLocked(c *restCall, pr *Project) (*Device, *apiError) {
	k, err := pathKey(c.r, "device_key", "device")
	if err != nil {
		return nil, err
	}
	d := p.st.devices[k]
	if d == nil || p.roleLocked(c.u, d.project) == "" || (pr != nil && d.project != pr) {
		return nil, notFound("device %d not found", k)
	}
	return d, nil
}

// pathAppLocked returns the app of the path parameter app_key, when the
// user can see it (404).
func (p *Platform) pathAppLocked(c *restCall) (*App, *apiError) {
	k, err := pathKey(c.r, "app_key", "app")
	if err != nil {
		return nil, err
	}
	return p.visibleAppLocked(c.u, k)
}

// visibleAppLocked returns the app with key k when the user can see it
// (404).
func (p *Platform) visibleAppLocked(u *user, k int) (*App, *apiError) {
	a := p.st.apps[k]
	if a == nil || !p.appVisibleLocked(u, a) {
		return nil, notFound("app %d not found", k)
	}
	return a, nil
}

// requireAdmin refuses a viewer (403).
func (p *Platform) requireAdmin(u *user, pr *Project) *apiError {
	if p.roleLocked(u, pr) != roleAdmin {
		return forbidden("user %q is a viewer of project %d; changes need the admin role", u.name, pr.key)
	}
	return nil
}

// requireOwner refuses a user who does not own the app (403).
func requireOwner(u *user, a *App) *apiError {
	if a.owner != u {
		return forbidden("app %d is not owned by user %q; only its owner may change it", a.key, u.name)
	}
	return nil
}

// restRead runs f under p.mu after settling the builds.
func (p *Platform) restRead(f func() (int, any, *apiError)) (int, any, *apiError) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.settleLocked()
	return f()
}

// restWrite runs f under p.ctl and p.mu after settling the builds, then
// brings the router's realms in line with the provisioned ones (an install
// may have created a realm).
func (p *Platform) restWrite(f func() (int, any, *apiError)) (int, any, *apiError) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	status, body, err := p.restRead(f)
	if err == nil {
		p.reconcileLocked()
	}
	return status, body, err
}
