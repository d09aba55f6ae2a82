// This file serves the routes of apps on a device of the management REST
// API:
//
//	GET    /devices/{device_key}/apps            the apps on a device
//	POST   /devices/{device_key}/apps            install an app {app_key, stage?, release_key?}
//	PUT    /devices/{device_key}/apps/{app_key}  set its state {target_state, release_key?}
//	DELETE /devices/{device_key}/apps/{app_key}  uninstall it
//
// A device holds an app at most once over the API. An app installed in Go
// or by a seed in both stages is told apart with ?stage=DEV|PROD on PUT and
// DELETE.

package rest

import (
	"net/http"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

func (api *API) routeDeviceApps(route func(string, restFunc)) {
	route("GET /devices/{device_key}/apps", api.restListDeviceApps)
	route("POST /devices/{device_key}/apps", api.restInstallApp)
	route("PUT /devices/{device_key}/apps/{app_key}", api.restSetAppState)
	route("DELETE /devices/{device_key}/apps/{app_key}", api.restUninstallApp)
}

var stages = registry.Stages

// targetStates are the states a user may ask for.
var targetStates = []string{wire.AppStateRunning, wire.AppStateStopped, wire.AppStatePresent}

func (api *API) restListDeviceApps(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		d, err := c.pathDevice(nil)
		if err != nil {
			return 0, nil, err
		}
		out := []DeviceApp{}
		for _, in := range c.st.DeviceInstalls(d) {
			out = append(out, deviceAppViewOf(in))
		}
		return http.StatusOK, out, nil
	})
}

func (api *API) restInstallApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return api.write(c, func() (int, any, *apiError) {
		d, err := c.pathDevice(nil)
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(d.Project); err != nil {
			return 0, nil, err
		}
		req, err := c.parseInstall(body)
		if err != nil {
			return 0, nil, err
		}
		a, rel, stage := req.app, req.release, req.stage
		if ins := c.st.InstallsOf(d, a.Key); len(ins) > 0 {
			return 0, nil, conflict(wire.CodeAlreadyInstalled, "app %d is already installed on device %d (%s)", a.Key, d.Key, ins[0].Stage)
		}
		in, ierr := c.st.Install(d, a, stage)
		if ierr != nil { // cannot happen: device, app and stage are checked
			return 0, nil, invalid("%v", ierr)
		}
		c.st.SetTarget(in, wire.AppStateRunning, rel)
		return http.StatusCreated, deviceAppViewOf(in), nil
	})
}

// installRequest is the body of an app install on a device or a group,
// {"app_key", "stage"?: DEV|PROD (default PROD), "release_key"?}, with the
// app and release it names.
type installRequest struct {
	app     *registry.App
	release *registry.Release
	stage   string
}

// parseInstall reads an install body and resolves its app and
// release (the newest READY one unless the body names one).
func (c *restCall) parseInstall(body []byte) (installRequest, *apiError) {
	if err := checkJSON(body); err != nil {
		return installRequest{}, err
	}
	o, err := parseObject(body, "the body", "app_key", "stage", "release_key")
	if err != nil {
		return installRequest{}, err
	}
	appKey, _, err := o.key("app_key", true)
	if err != nil {
		return installRequest{}, err
	}
	stage, ok, err := enum(o, "stage", false, stages)
	if err != nil {
		return installRequest{}, err
	}
	if !ok {
		stage = wire.StageProd
	}
	relKey, hasRel, err := o.key("release_key", false)
	if err != nil {
		return installRequest{}, err
	}
	a, err := c.visibleApp(appKey)
	if err != nil {
		return installRequest{}, err
	}
	rel, err := c.releaseToInstall(a, relKey, hasRel)
	if err != nil {
		return installRequest{}, err
	}
	return installRequest{app: a, release: rel, stage: stage}, nil
}

// releaseToInstall returns the release to install: the one named
// (404 when it is not a release of a the user can see, 409 when it is not
// READY), else the newest READY one (409 when there is none).
func (c *restCall) releaseToInstall(a *registry.App, key int, named bool) (*registry.Release, *apiError) {
	if !named {
		r := c.st.NewestReady(a)
		if r == nil {
			return nil, conflict(wire.CodeNotReleased, "app %d has no READY release", a.Key)
		}
		return r, nil
	}
	r := c.st.Release(key)
	if r == nil || r.App != a || !releaseVisible(c.u, r) {
		return nil, notFound("release %d of app %d not found", key, a.Key)
	}
	if r.Status != registry.ReleaseReady {
		return nil, conflict(wire.CodeReleaseNotReady, "release %d of app %d is %s, not READY", key, a.Key, r.Status)
	}
	return r, nil
}

// pathInstall returns the installation on d of the path's app_key,
// in the stage of ?stage= when given (404 when there is none; 422 when the
// app is installed in both stages and no stage is given).
func (c *restCall) pathInstall(d *registry.Device) (*registry.Installation, *apiError) {
	appKey, err := pathKey(c.r, "app_key", "app")
	if err != nil {
		return nil, err
	}
	s, given, err := queryValue(c.r, "stage")
	if err != nil {
		return nil, err
	}
	ins := c.st.InstallsOf(d, appKey)
	if given {
		stage := s
		if stage != wire.StageDev && stage != wire.StageProd {
			return nil, invalid("query parameter \"stage\" is %q; want DEV or PROD", s)
		}
		ins = nil
		if in := c.st.Installation(d.Key, appKey, stage); in != nil {
			ins = append(ins, in)
		}
	}
	switch len(ins) {
	case 0:
		return nil, notFound("app %d is not installed on device %d", appKey, d.Key)
	case 1:
		return ins[0], nil
	}
	return nil, invalid("app %d is installed on device %d in DEV and in PROD; name one with ?stage=", appKey, d.Key)
}

func (api *API) restSetAppState(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return api.write(c, func() (int, any, *apiError) {
		d, err := c.pathDevice(nil)
		if err != nil {
			return 0, nil, err
		}
		in, err := c.pathInstall(d)
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(d.Project); err != nil {
			return 0, nil, err
		}
		if err := checkJSON(body); err != nil {
			return 0, nil, err
		}
		o, err := parseObject(body, "the body", "target_state", "release_key")
		if err != nil {
			return 0, nil, err
		}
		target, _, err := enum(o, "target_state", true, targetStates)
		if err != nil {
			return 0, nil, err
		}
		relKey, hasRel, err := o.key("release_key", false)
		if err != nil {
			return 0, nil, err
		}
		var rel *registry.Release
		if hasRel {
			if rel, err = c.releaseToInstall(in.App, relKey, true); err != nil {
				return 0, nil, err
			}
		}
		c.st.SetTarget(in, target, rel)
		return http.StatusOK, deviceAppViewOf(in), nil
	})
}

func (api *API) restUninstallApp(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		d, err := c.pathDevice(nil)
		if err != nil {
			return 0, nil, err
		}
		in, err := c.pathInstall(d)
		if err != nil {
			return 0, nil, err
		}
		if err := c.requireAdmin(d.Project); err != nil {
			return 0, nil, err
		}
		if in.Group != nil {
			return 0, nil, conflict(wire.CodeInherited, "app %d is inherited from group %d on device %d; remove the app from the group or the device from the group",
				in.App.Key, in.Group.Key, d.Key)
		}
		c.st.RemoveInstall(in)
		return http.StatusNoContent, nil, nil
	})
}
