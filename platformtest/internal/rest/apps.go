// This file serves the app routes of the management REST API:
//
//	GET    /apps            released apps (every user sees them)
//	GET    /apps/{app_key}  one app the user owns or that is released
//	POST   /apps            create an app {name, description?}; the user owns it
//	DELETE /apps/{app_key}  delete an app the user owns and nothing runs

package rest

import (
	"net/http"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

func (api *API) routeApps(route func(string, restFunc)) {
	route("GET /apps", api.restListApps)
	route("GET /apps/{app_key}", api.restGetApp)
	route("POST /apps", api.restCreateApp)
	route("DELETE /apps/{app_key}", api.restDeleteApp)
}

func (api *API) restListApps(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		out := []App{}
		for _, a := range c.st.Apps() {
			if c.st.Released(a) {
				out = append(out, c.appView(a))
			}
		}
		return http.StatusOK, out, nil
	})
}

func (api *API) restGetApp(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, c.appView(a), nil
	})
}

func (api *API) restCreateApp(c *restCall) (int, any, *apiError) {
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
	if !registry.AppNamePattern.MatchString(name) {
		return 0, nil, invalid("the body: field \"name\" is %q; want 1 to 63 letters, digits, '.', '_' or '-'", name)
	}
	desc, _, err := o.str("description", false)
	if err != nil {
		return 0, nil, err
	}
	if err := checkText("the body", "description", desc, maxDescription); err != nil {
		return 0, nil, err
	}
	return api.write(c, func() (int, any, *apiError) {
		if a := c.st.OwnedAppNamed(c.u, name); a != nil {
			return 0, nil, conflict(wire.CodeAlreadyExists, "user %q already owns app %q (app %d)", c.u.Name, a.Name, a.Key)
		}
		a := c.st.CreateApp(c.u, name, desc)
		return http.StatusCreated, c.appView(a), nil
	})
}

func (api *API) restDeleteApp(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		if c.st.AppInUse(a) {
			return 0, nil, conflict(wire.CodeInUse, "app %d is installed on devices or groups; uninstall it first", a.Key)
		}
		c.st.DeleteApp(a)
		return http.StatusNoContent, nil, nil
	})
}
