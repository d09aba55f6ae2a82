// This file holds authentication and scope of the management REST API
// (docs/fake.md §9): the bearer token names a user; a user sees the
// projects they are a member of with their devices and groups, and the
// apps they own or that are released. A resource out of sight is 404,
// never 403; a visible one the user may not change is 403. It serves no
// route of its own; the locking helpers of the handlers live here too.

package rest

import (
	"net/http"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// authenticate returns the user of the request's bearer token (401).
func (api *API) authenticate(r *http.Request) (*registry.User, *apiError) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return nil, errorf(http.StatusUnauthorized, wire.CodeUnauthenticated, "missing Authorization: Bearer <token>")
	}
	scheme, token, _ := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, errorf(http.StatusUnauthorized, wire.CodeUnauthenticated, "the Authorization header must be Bearer <token>")
	}
	var u *registry.User
	api.reg.View(func(s *registry.State) { u = s.UserByToken(token) })
	if u == nil {
		return nil, errorf(http.StatusUnauthorized, wire.CodeUnauthenticated, "unknown bearer token")
	}
	return u, nil
}

// project returns the project named by a swarm key the user can see
// (404).
func (c *restCall) project(swarm int) (*registry.Project, *apiError) {
	pr := c.st.Project(swarm)
	if pr == nil || c.st.Role(c.u, pr) == "" {
		return nil, notFound("project %d not found", swarm)
	}
	return pr, nil
}

// pathProject is project for the path parameter swarm_key.
func (c *restCall) pathProject() (*registry.Project, *apiError) {
	k, err := pathKey(c.r, "swarm_key", "project")
	if err != nil {
		return nil, err
	}
	return c.project(k)
}

// pathDevice returns the device of the path parameter device_key,
// when the user can see it (404); with pr set, it must be in pr.
func (c *restCall) pathDevice(pr *registry.Project) (*registry.Device, *apiError) {
	k, err := pathKey(c.r, "device_key", "device")
	if err != nil {
		return nil, err
	}
	d := c.st.Device(k)
	if d == nil || c.st.Role(c.u, d.Project) == "" || (pr != nil && d.Project != pr) {
		return nil, notFound("device %d not found", k)
	}
	return d, nil
}

// pathApp returns the app of the path parameter app_key, when the
// user can see it (404).
func (c *restCall) pathApp() (*registry.App, *apiError) {
	k, err := pathKey(c.r, "app_key", "app")
	if err != nil {
		return nil, err
	}
	return c.visibleApp(k)
}

// visibleApp returns the app with key k when the user can see it
// (404).
func (c *restCall) visibleApp(k int) (*registry.App, *apiError) {
	a := c.st.App(k)
	if a == nil || !c.st.AppVisible(c.u, a) {
		return nil, notFound("app %d not found", k)
	}
	return a, nil
}

// requireAdmin refuses a viewer (403).
func (c *restCall) requireAdmin(pr *registry.Project) *apiError {
	if c.st.Role(c.u, pr) != wire.RoleAdmin {
		return forbidden("user %q is a viewer of project %d; changes need the admin role", c.u.Name, pr.Key)
	}
	return nil
}

// requireOwner refuses a user who does not own the app (403).
func requireOwner(u *registry.User, a *registry.App) *apiError {
	if a.Owner != u {
		return forbidden("app %d is not owned by user %q; only its owner may change it", a.Key, u.Name)
	}
	return nil
}

// read runs f with c.st set, under the registry's lock, after settling
// the builds. What f changed (the settle's ends of builds) is kept before
// read returns; when it cannot be kept (the data folder's disk is full)
// it is undone and the read is answered all the same: reads go on while
// the disk is full, and the settle happens again at the next call.
func (api *API) read(c *restCall, f func() (int, any, *apiError)) (int, any, *apiError) {
	status, body, err, _ := api.run(c, f)
	return status, body, err
}

// write is read for a change: a change that cannot be kept is undone and
// answered 500; when f succeeded, it brings the router's realms in line
// with the provisioned ones (an install may have created a realm).
func (api *API) write(c *restCall, f func() (int, any, *apiError)) (int, any, *apiError) {
	status, body, err, kerr := api.run(c, f)
	if kerr != nil && err == nil {
		return 0, nil, errorf(http.StatusInternalServerError, wire.CodeInternal,
			"the change could not be kept, and nothing of it is (retry once the platform's disk has room): %v", kerr)
	}
	if err == nil {
		api.cfg.Changed()
	}
	return status, body, err
}

// run runs f as read and write do and returns, beside its answer, the
// error of keeping what it changed (already undone).
func (api *API) run(c *restCall, f func() (int, any, *apiError)) (status int, body any, err *apiError, kerr error) {
	c.online = api.cfg.Online()
	kerr = api.reg.Update(func(s *registry.State) error {
		defer func() { c.st = nil }()
		c.st = s
		s.Settle()
		status, body, err = f()
		return nil
	})
	return status, body, err, kerr
}
