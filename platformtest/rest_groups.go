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
// Apps of a group propagate to its members (model_groups.go).

package platformtest

import (
	"cmp"
	"net/http"
	"slices"
)

func (p *Platform) routeGroups(route func(string, restFunc)) {
	route("GET /swarms/{swarm_key}/groups", p.restListGroups)
	route("GET /swarms/{swarm_key}/groups/{group_key}", p.restGetGroup)
	route("PUT /swarms/{swarm_key}/groups/{group_key}/devices/{device_key}", p.restAddMember)
	route("DELETE /swarms/{swarm_key}/groups/{group_key}/devices/{device_key}", p.restRemoveMember)
	route("POST /swarms/{swarm_key}/groups/{group_key}/apps", p.restInstallGroupApp)
	route("PUT /swarms/{swarm_key}/groups/{group_key}/apps/{app_key}", p.restUpdateGroupApp)
	route("DELETE /swarms/{swarm_key}/groups/{group_key}/apps/{app_key}", p.restRemoveGroupApp)
}

// pathGroupLocked returns the project and the group of the path (404).
func (p *Platform) pathGroupLocked(c *restCall) (*Project, *group, *apiError) {
	pr, err := p.pathProjectLocked(c)
	if err != nil {
		return nil, nil, err
	}
	k, err := pathKey(c.r, "group_key", "group")
	if err != nil {
		return nil, nil, err
	}
	g := p.st.groups[k]
	if g == nil || g.project != pr {
		return nil, nil, notFound("group %d not found in project %d", k, pr.key)
	}
	return pr, g, nil
}

// pathGroupAppLocked returns the entry of the path's app_key on g (404).
func pathGroupAppLocked(c *restCall, g *group) (*groupApp, *apiError) {
	k, err := pathKey(c.r, "app_key", "app")
	if err != nil {
		return nil, err
	}
	ga := g.appEntry(k)
	if ga == nil {
		return nil, notFound("app %d is not installed on group %d", k, g.key)
	}
	return ga, nil
}

func (p *Platform) restListGroups(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		pr, err := p.pathProjectLocked(c)
		if err != nil {
			return 0, nil, err
		}
		var gs []*group
		for _, g := range p.st.groups {
			if g.project == pr {
				gs = append(gs, g)
			}
		}
		slices.SortFunc(gs, func(a, b *group) int { return cmp.Compare(a.key, b.key) })
		out := []groupView{}
		for _, g := range gs {
			out = append(out, groupViewLocked(g))
		}
		return http.StatusOK, out, nil
	})
}

func (p *Platform) restGetGroup(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		_, g, err := p.pathGroupLocked(c)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, groupViewLocked(g), nil
	})
}

func (p *Platform) restAddMember(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		g, d, err := p.pathMemberLocked(c, false)
		if err != nil {
			return 0, nil, err
		}
		p.addMemberLocked(g, d)
		return http.StatusOK, groupViewLocked(g), nil
	})
}

// pathMemberLocked resolves the group and the device of a membership route
// (404s first, then the admin check); with member set the device must
// belong to the group.
func (p *Platform) pathMemberLocked(c *restCall, member bool) (*group, *Device, *apiError) {
	pr, g, err := p.pathGroupLocked(c)
	if err != nil {
		return nil, nil, err
	}
	d, err := p.pathDeviceLocked(c, pr)
	if err != nil {
		return nil, nil, err
	}
	if member && !slices.Contains(g.devices, d) {
		return nil, nil, notFound("device %d is not a member of group %d", d.key, g.key)
	}
	if err := p.requireAdmin(c.u, pr); err != nil {
		return nil, nil, err
	}
	return g, d, nil
}

func (p *Platform) restRemoveMember(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		g, d, err := p.pathMemberLocked(c, true)
		if err != nil {
			return 0, nil, err
		}
		p.removeMemberLocked(g, d)
		return http.StatusNoContent, nil, nil
	})
}

func (p *Platform) restInstallGroupApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return p.restWrite(func() (int, any, *apiError) {
		pr, g, err := p.pathGroupLocked(c)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, pr); err != nil {
			return 0, nil, err
		}
		req, err := p.parseInstallLocked(c.u, body)
		if err != nil {
			return 0, nil, err
		}
		a, rel, stage := req.app, req.release, req.stage
		if g.appEntry(a.key) != nil {
			return 0, nil, conflict(codeAlreadyInstalled, "app %d is already installed on group %d", a.key, g.key)
		}
		ga := &groupApp{app: a, release: rel, stage: stage, target: AppRunning}
		p.addGroupAppLocked(g, ga)
		return http.StatusCreated, groupAppViewOf(ga), nil
	})
}

func (p *Platform) restUpdateGroupApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return p.restWrite(func() (int, any, *apiError) {
		g, ga, err := p.pathGroupAppAdminLocked(c)
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
			target = ga.target
		}
		var rel *release
		if hasRel {
			if rel, err = p.releaseToInstallLocked(c.u, ga.app, relKey, true); err != nil {
				return 0, nil, err
			}
		}
		p.updateGroupAppLocked(g, ga, rel, target)
		return http.StatusOK, groupAppViewOf(ga), nil
	})
}

// pathGroupAppAdminLocked resolves the group and its app of a group-app route
// (404s first, then the admin check).
func (p *Platform) pathGroupAppAdminLocked(c *restCall) (*group, *groupApp, *apiError) {
	pr, g, err := p.pathGroupLocked(c)
	if err != nil {
		return nil, nil, err
	}
	ga, err := pathGroupAppLocked(c, g)
	if err != nil {
		return nil, nil, err
	}
	if err := p.requireAdmin(c.u, pr); err != nil {
		return nil, nil, err
	}
	return g, ga, nil
}

func (p *Platform) restRemoveGroupApp(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		g, ga, err := p.pathGroupAppAdminLocked(c)
		if err != nil {
			return 0, nil, err
		}
		p.removeGroupAppLocked(g, ga)
		return http.StatusNoContent, nil, nil
	})
}
