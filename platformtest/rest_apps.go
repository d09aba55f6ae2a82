// This file serves the app routes of the management REST API:
//
//	GET    /apps            released apps (every user sees them)
//	GET    /apps/{app_key}  one app the user owns or that is released
//	POST   /apps            create an app {name, description?}; the user owns it
//	DELETE /apps/{app_key}  delete an app the user owns and nothing runs

package platformtest

import (
	"cmp"
	"net/http"
	"slices"
)

func (p *Platform) routeApps(route func(string, restFunc)) {
	route("GET /apps", p.restListApps)
	route("GET /apps/{app_key}", p.restGetApp)
	route("POST /apps", p.restCreateApp)
	route("DELETE /apps/{app_key}", p.restDeleteApp)
}

func (p *Platform) restListApps(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		var as []*App
		for _, a := range p.st.apps {
			if p.releasedLocked(a) {
				as = append(as, a)
			}
		}
		slices.SortFunc(as, func(a, b *App) int { return cmp.Compare(a.key, b.key) })
		out := []appView{}
		for _, a := range as {
			out = append(out, p.appViewLocked(a))
		}
		return http.StatusOK, out, nil
	})
}

func (p *Platform) restGetApp(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, p.appViewLocked(a), nil
	})
}

func (p *Platform) restCreateApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	if err := checkJSON(body); err != nil {
		return 0, nil, err
	}
	o, err := parseObject(body, "the body", "name", "description")
	if err != nil {
		return 0, nil, err
	}
	name, _, err := o.str("name", true)
	if err != nil {
		return 0, nil, err
	}
	if !appNamePattern.MatchString(name) {
		return 0, nil, invalid("the body: field \"name\" is %q; want 1 to 63 letters, digits, '.', '_' or '-'", name)
	}
	desc, _, err := o.str("description", false)
	if err != nil {
		return 0, nil, err
	}
	if err := checkText("the body", "description", desc, maxDescription); err != nil {
		return 0, nil, err
	}
	return p.restWrite(func() (int, any, *apiError) {
		if a := p.ownedAppNamedLocked(c.u, name); a != nil {
			return 0, nil, conflict(codeAlreadyExists, "user %q already owns app %q (app %d)", c.u.name, a.name, a.key)
		}
		a := p.createAppLocked(c.u, name, desc)
		return http.StatusCreated, p.appViewLocked(a), nil
	})
}

func (p *Platform) restDeleteApp(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		if p.appInUseLocked(a) {
			return 0, nil, conflict(codeInUse, "app %d is installed on devices or groups; uninstall it first", a.key)
		}
		p.deleteAppLocked(a)
		return http.StatusNoContent, nil, nil
	})
}
