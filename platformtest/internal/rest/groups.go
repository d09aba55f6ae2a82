// This file serves the group routes of the management REST API:
//
//	GET    /swarms/{swarm_key}/groups                                   groups of a project
//	GET    /swarms/{swarm_key}/groups/{group_key}                       one group
//	PUT    /swarms/{swarm_key}/groups/{group_key}/devices/{device_key}  add a member (idempotent)
//	DELETE /swarms/{swarm_key}/groups/{group_key}/devices/{device_key}  remove a member
//	POST   /swarms/{swarm_key}/groups/{group_key}/apps                  install an app {app_key, release_key?, stage?}
//	PUT    /swarms/{swarm_key}/groups/{group_key}/apps/{app_key}        update it {release_key?, target_state?}
//	DELETE /swarms/{swarm_key}/groups/{group_key}/apps/{app_key}        remove it
//
// Apps of a group propagate to its members (internal/registry, groups.go).

package rest

import (
	"net/http"
	"slices"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

func (api *API) routeGroups(route func(string, restFunc)) {
	route("GET /swarms/{swarm_key}/groups", api.restListGroups)
	route("GET /swarms/{swarm_key}/groups/{group_key}", api.restGetGroup)
	route("PUT /swarms/{swarm_key}/groups/{group_key}/devices/{device_key}", api.restAddMember)
	route("DELETE /swarms/{swarm_key}/groups/{group_key}/devices/{device_key}", api.restRemoveMember)
	route("POST /swarms/{swarm_key}/groups/{group_key}/apps", api.restInstallGroupApp)
	route("PUT /swarms/{swarm_key}/groups/{group_key}/apps/{app_key}", api.restUpdateGroupApp)
	route("DELETE /swarms/{swarm_key}/groups/{group_key}/apps/{app_key}", api.restRemoveGroupApp)
}

// pathGroup returns the project and the group of the path (404).
func (c *restCall) pathGroup() (*registry.Project, *registry.Group, *apiError) {
	pr, err := c.pathProject()
	if err != nil {
		return nil, nil, err
	}
	k, err := pathKey(c.r, "group_key", "group")
	if err != nil {
		return nil, nil, err
	}
	g := c.st.Group(k)
	if g == nil || g.Project != pr {
		return nil, nil, notFound("group %d not found in project %d", k, pr.Key)
	}
	return pr, g, nil
}

// pathGroupApp returns the entry of the path's app_key on g (404).
func pathGroupApp(c *restCall, g *registry.Group) (*registry.GroupApp, *apiError) {
	k, err := pathKey(c.r, "app_key", "app")
	if err != nil {
		return nil, err
	}
	ga := g.AppEntry(k)
	if ga == nil {
		return nil, notFound("app %d is not installed on group %d", k, g.Key)
	}
	return ga, nil
}

func (api *API) restListGroups(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		pr, err := c.pathProject()
		if err != nil {
			return 0, nil, err
		}
		out := []Group{}
		for _, g := range c.st.Groups() {
			if g.Project == pr {
				out = append(out, groupViewOf(g))
			}
		}
		return http.StatusOK, out, nil
	})
}

func (api *API) restGetGroup(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		_, g, err := c.pathGroup()
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, groupViewOf(g), nil
	})
}

func (api *API) restAddMember(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		g, d, err := c.pathMember(false)
		if err != nil {
			return 0, nil, err
		}
		c.st.AddMember(g, d)
		return http.StatusOK, groupViewOf(g), nil
	})
}

// pathMember resolves the group and the device of a membership route
// (404s first, then the admin check); with member set the device must
// belong to the group.
func (c *restCall) pathMember(member bool) (*registry.Group, *registry.Device, *apiError) {
	pr, g, err := c.pathGroup()
	if err != nil {
		return nil, nil, err
	}
	d, err := c.pathDevice(pr)
	if err != nil {
		return nil, nil, err
	}
	if member && !slices.Contains(g.Devices, d) {
		return nil, nil, notFound("device %d is not a member of group %d", d.Key, g.Key)
	}
	if err := c.requireAdmin(pr); err != nil {
		return nil, nil, err
	}
	return g, d, nil
}

func (api *API) restRemoveMember(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		g, d, err := c.pathMember(true)
		if err != nil {
			return 0, nil, err
		}
		c.st.RemoveMember(g, d)
		return http.StatusNoContent, nil, nil
	})
}

func (api *API) restInstallGroupApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return api.write(c, func() (int, any, *apiError) {
		pr, g, err := c.pathGroup()
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(pr); err != nil {
			return 0, nil, err
		}
		req, err := c.parseInstall(body)
		if err != nil {
			return 0, nil, err
		}
		a, rel, stage := req.app, req.release, req.stage
		if g.AppEntry(a.Key) != nil {
			return 0, nil, conflict(wire.CodeAlreadyInstalled, "app %d is already installed on group %d", a.Key, g.Key)
		}
		ga := &registry.GroupApp{App: a, Release: rel, Stage: stage, Target: wire.AppStateRunning}
		c.st.AddGroupApp(g, ga)
		return http.StatusCreated, groupAppViewOf(ga), nil
	})
}

func (api *API) restUpdateGroupApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return api.write(c, func() (int, any, *apiError) {
		g, ga, err := c.pathGroupAppAdmin()
		if err != nil {
			return 0, nil, err
		}
		if err := checkJSON(body); err != nil {
			return 0, nil, err
		}
		o, err := parseObject(body, "the body", "release_key", "target_state")
		if err != nil {
			return 0, nil, err
		}
		relKey, hasRel, err := o.key("release_key", false)
		if err != nil {
			return 0, nil, err
		}
		target, hasTarget, err := enum(o, "target_state", false, targetStates)
		if err != nil {
			return 0, nil, err
		}
		if !hasRel && !hasTarget {
			return 0, nil, invalid("the body: nothing to update; give release_key, target_state or both")
		}
		if !hasTarget {
			target = ga.Target
		}
		var rel *registry.Release
		if hasRel {
			if rel, err = c.releaseToInstall(ga.App, relKey, true); err != nil {
				return 0, nil, err
			}
		}
		c.st.UpdateGroupApp(g, ga, rel, target)
		return http.StatusOK, groupAppViewOf(ga), nil
	})
}

// pathGroupAppAdmin resolves the group and its app of a group-app route
// (404s first, then the admin check).
func (c *restCall) pathGroupAppAdmin() (*registry.Group, *registry.GroupApp, *apiError) {
	pr, g, err := c.pathGroup()
	if err != nil {
		return nil, nil, err
	}
	ga, err := pathGroupApp(c, g)
	if err != nil {
		return nil, nil, err
	}
	if err := c.requireAdmin(pr); err != nil {
		return nil, nil, err
	}
	return g, ga, nil
}

func (api *API) restRemoveGroupApp(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		g, ga, err := c.pathGroupAppAdmin()
		if err != nil {
			return 0, nil, err
		}
		c.st.RemoveGroupApp(g, ga)
		return http.StatusNoContent, nil, nil
	})
}
