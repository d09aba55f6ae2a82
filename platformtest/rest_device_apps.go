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

package platformtest

import (
	"net/http"
)

func (p *Platform) routeDeviceApps(route func(string, restFunc)) {
	route("GET /devices/{device_key}/apps", p.restListDeviceApps)
	route("POST /devices/{device_key}/apps", p.restInstallApp)
	route("PUT /devices/{device_key}/apps/{app_key}", p.restSetAppState)
	route("DELETE /devices/{device_key}/apps/{app_key}", p.restUninstallApp)
}

var stages = []Stage{Dev, Prod}

func (p *Platform) restListDeviceApps(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		d, err := p.pathDeviceLocked(c, nil)
		if err != nil {
			return 0, nil, err
		}
		out := []deviceAppView{}
		for _, in := range p.deviceInstallsLocked(d) {
			out = append(out, deviceAppViewLocked(in))
		}
		return http.StatusOK, out, nil
	})
}

func (p *Platform) restInstallApp(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return p.restWrite(func() (int, any, *apiError) {
		d, err := p.pathDeviceLocked(c, nil)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, d.project); err != nil {
			return 0, nil, err
		}
		req, err := p.parseInstallLocked(c.u, body)
		if err != nil {
			return 0, nil, err
		}
		a, rel, stage := req.app, req.release, req.stage
		if ins := p.installsOfLocked(d, a.key); len(ins) > 0 {
			return 0, nil, conflict(codeAlreadyInstalled, "app %d is already installed on device %d (%s)", a.key, d.key, ins[0].stage)
		}
		in, ierr := p.installLocked(d, a, stage)
		if ierr != nil { // cannot happen: device, app and stage are checked
			return 0, nil, invalid("%v", ierr)
		}
		in.setTargetLocked(AppRunning, rel)
		return http.StatusCreated, deviceAppViewLocked(in), nil
	})
}

// installRequest is the body of an app install on a device or a group,
// {"app_key", "stage"?: DEV|PROD (default PROD), "release_key"?}, with the
// app and release it names.
type installRequest struct {
	app     *App
	release *release
	stage   Stage
}

// parseInstallLocked reads an install body and resolves its app and
// release (the newest READY one unless the body names one).
func (p *Platform) parseInstallLocked(u *user, body []byte) (installRequest, *apiError) {
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
		stage = Prod
	}
	relKey, hasRel, err := o.key("release_key", false)
	if err != nil {
		return installRequest{}, err
	}
	a, err := p.visibleAppLocked(u, appKey)
	if err != nil {
		return installRequest{}, err
	}
	rel, err := p.releaseToInstallLocked(u, a, relKey, hasRel)
	if err != nil {
		return installRequest{}, err
	}
	return installRequest{app: a, release: rel, stage: stage}, nil
}

// releaseToInstallLocked returns the release to install: the one named
// (404 when it is not a release of a the user can see, 409 when it is not
// READY), else the newest READY one (409 when there is none).
func (p *Platform) releaseToInstallLocked(u *user, a *App, key int, named bool) (*release, *apiError) {
	if !named {
		r := p.newestReadyLocked(a)
		if r == nil {
			return nil, conflict(codeNotReleased, "app %d has no READY release", a.key)
		}
		return r, nil
	}
	r := p.st.releases[key]
	if r == nil || r.app != a || !releaseVisible(u, r) {
		return nil, notFound("release %d of app %d not found", key, a.key)
	}
	if r.status != releaseReady {
		return nil, conflict(codeReleaseNotReady, "release %d of app %d is %s, not READY", key, a.key, r.status)
	}
	return r, nil
}

// pathInstallLocked returns the installation on d of the path's app_key,
// in the stage of ?stage= when given (404 when there is none; 422 when the
// app is installed in both stages and no stage is given).
func (p *Platform) pathInstallLocked(c *restCall, d *Device) (*Installation, *apiError) {
	appKey, err := pathKey(c.r, "app_key", "app")
	if err != nil {
		return nil, err
	}
	s, given, err := queryValue(c.r, "stage")
	if err != nil {
		return nil, err
	}
	ins := p.installsOfLocked(d, appKey)
	if given {
		stage := Stage(s)
		if stage != Dev && stage != Prod {
			return nil, invalid("query parameter \"stage\" is %q; want DEV or PROD", s)
		}
		ins = nil
		if in := p.st.installs[instKey{d.key, appKey, stage}]; in != nil {
			ins = append(ins, in)
		}
	}
	switch len(ins) {
	case 0:
		return nil, notFound("app %d is not installed on device %d", appKey, d.key)
	case 1:
		return ins[0], nil
	}
	return nil, invalid("app %d is installed on device %d in DEV and in PROD; name one with ?stage=", appKey, d.key)
}

func (p *Platform) restSetAppState(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	return p.restWrite(func() (int, any, *apiError) {
		d, err := p.pathDeviceLocked(c, nil)
		if err != nil {
			return 0, nil, err
		}
		in, err := p.pathInstallLocked(c, d)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, d.project); err != nil {
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
		var rel *release
		if hasRel {
			if rel, err = p.releaseToInstallLocked(c.u, in.app, relKey, true); err != nil {
				return 0, nil, err
			}
		}
		in.setTargetLocked(target, rel)
		return http.StatusOK, deviceAppViewLocked(in), nil
	})
}

func (p *Platform) restUninstallApp(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		d, err := p.pathDeviceLocked(c, nil)
		if err != nil {
			return 0, nil, err
		}
		in, err := p.pathInstallLocked(c, d)
		if err != nil {
			return 0, nil, err
		}
		if err := p.requireAdmin(c.u, d.project); err != nil {
			return 0, nil, err
		}
		if in.group != nil {
			return 0, nil, conflict(codeInherited, "app %d is inherited from group %d on device %d; remove the app from the group or the device from the group",
				in.app.key, in.group.key, d.key)
		}
		p.removeInstallLocked(in)
		return http.StatusNoContent, nil, nil
	})
}
