// This file serves the release routes of the management REST API:
//
//	POST   /apps/{app_key}/releases?wait=&timeout=             start a build {version, data_template?, ai_template?}
//	GET    /apps/{app_key}/releases?swarm_key=N                the app's releases, with installations in project N
//	GET    /apps/{app_key}/releases/{release_key}?swarm_key=N  one release
//	DELETE /apps/{app_key}/releases/{release_key}              delete a release nothing runs
//	POST   /apps/{app_key}/releases/cancel                     cancel the build in progress
//
// A build validates the templates with package template (an invalid one
// fails the build with the validator's message) and lasts the platform's
// build duration in platform time. wait=true (default) answers when the
// build ends (201), or when timeout seconds of platform time pass first
// (202, still BUILDING, with Retry-After); wait=false answers at once
// (202, BUILDING). The owner of an app sees all its releases; other users
// see its READY releases only.

package rest

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

func (api *API) routeReleases(route func(string, restFunc)) {
	route("POST /apps/{app_key}/releases", api.restCreateRelease)
	route("GET /apps/{app_key}/releases", api.restListReleases)
	route("GET /apps/{app_key}/releases/{release_key}", api.restGetRelease)
	route("DELETE /apps/{app_key}/releases/{release_key}", api.restDeleteRelease)
	route("POST /apps/{app_key}/releases/cancel", api.restCancelRelease)
}

// semverPattern is the pattern of semver.org for a version.
var semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// maxVersion bounds the length of a version.
const maxVersion = 128

// releaseVisible reports whether u may see r: the owner of its app sees
// every release, other users the READY ones.
func releaseVisible(u *registry.User, r *registry.Release) bool {
	return r.App.Owner == u || r.Status == registry.ReleaseReady
}

// newRelease is the body of a release creation.
type newRelease struct {
	version, data, ai string
	failure           string // the validator's message, "" when valid
}

func parseNewRelease(body []byte) (newRelease, *apiError) {
	var nr newRelease
	if err := checkJSON(body); err != nil {
		return nr, err
	}
	o, err := parseObject(body, "the body", "version", "data_template", "ai_template")
	if err != nil {
		return nr, err
	}
	if nr.version, _, err = o.str("version", true); err != nil {
		return nr, err
	}
	if len(nr.version) > maxVersion || !semverPattern.MatchString(nr.version) {
		return nr, invalid("the body: field \"version\" is %q; want a semantic version such as 1.2.3 (at most %d bytes)", nr.version, maxVersion)
	}
	if nr.data, _, err = o.str("data_template", false); err != nil {
		return nr, err
	}
	if nr.ai, _, err = o.str("ai_template", false); err != nil {
		return nr, err
	}
	if nr.data != "" {
		if _, _, err := template.ParseData([]byte(nr.data)); err != nil {
			nr.failure = err.Error()
		}
	}
	if nr.ai != "" && nr.failure == "" {
		if _, _, err := template.ParseAgents([]byte(nr.ai)); err != nil {
			nr.failure = err.Error()
		}
	}
	return nr, nil
}

func (api *API) restCreateRelease(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	var wait bool
	var timeout float64
	_, _, err = api.read(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		if wait, err = queryWait(c.r); err != nil {
			return 0, nil, err
		}
		timeout, err = queryTimeout(c.r)
		return 0, nil, err
	})
	if err != nil {
		return 0, nil, err
	}
	nr, err := parseNewRelease(body) // outside the lock: templates can be long
	if err != nil {
		return 0, nil, err
	}
	var r *registry.Release
	status, view, err := api.write(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil { // deleted meanwhile
			return 0, nil, err
		}
		if b := c.st.Building(a); b != nil {
			return 0, nil, conflict(wire.CodeBuildInProgress, "app %d has a build in progress (release %d); cancel it or wait", a.Key, b.Key)
		}
		for _, old := range c.st.ReleasesOf(a) {
			if old.Version == nr.version {
				return 0, nil, conflict(wire.CodeAlreadyExists, "app %d has a release %s already (release %d)", a.Key, nr.version, old.Key)
			}
		}
		r = c.st.StartBuild(a, nr.version, nr.data, nr.ai, nr.failure)
		return http.StatusAccepted, releaseViewOf(r), nil
	})
	if err != nil || !wait {
		return status, view, err
	}
	return api.waitBuild(c, r, timeout)
}

// waitBuild waits until r's build ends (201), or timeout seconds of
// platform time pass first (202 with Retry-After; 0 waits without limit).
func (api *API) waitBuild(c *restCall, r *registry.Release, timeout float64) (int, any, *apiError) {
	var expired <-chan time.Time
	if timeout > 0 {
		expired = api.clock.After(time.Duration(timeout * float64(time.Second)))
	}
	api.reg.Do(func(*registry.State) { r.Waiters++ })
	defer api.reg.Do(func(*registry.State) { r.Waiters-- })
	look := func() (v Release, status string, left time.Duration) {
		api.reg.Do(func(s *registry.State) {
			s.Settle()
			v, status, left = releaseViewOf(r), r.Status, r.FinishAt.Sub(s.Now())
		})
		return v, status, left
	}
	for {
		v, status, left := look()
		if status != registry.ReleaseBuilding {
			return http.StatusCreated, v, nil
		}
		select {
		case <-api.clock.After(left):
		case <-r.Done:
		case <-expired:
			v, status, left = look()
			if status != registry.ReleaseBuilding {
				return http.StatusCreated, v, nil
			}
			c.w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(left.Seconds())))))
			return http.StatusAccepted, v, nil
		case <-c.r.Context().Done(): // the client is gone: nobody reads the answer
			return http.StatusAccepted, v, nil
		}
	}
}

// releaseQuery reads the required swarm_key of the release reads: a
// project the user can see.
func (c *restCall) releaseQuery() (*registry.Project, *apiError) {
	k, err := queryKey(c.r, "swarm_key")
	if err != nil {
		return nil, err
	}
	return c.project(k)
}

// pathRelease returns the release of the path's release_key when it
// is a release of a the user can see (404).
func (c *restCall) pathRelease(a *registry.App) (*registry.Release, *apiError) {
	k, err := pathKey(c.r, "release_key", "release")
	if err != nil {
		return nil, err
	}
	r := c.st.Release(k)
	if r == nil || r.App != a || !releaseVisible(c.u, r) {
		return nil, notFound("release %d of app %d not found", k, a.Key)
	}
	return r, nil
}

func (c *restCall) releaseInProject(r *registry.Release, pr *registry.Project) Release {
	v := releaseViewOf(r)
	n := c.st.InstallCount(r, pr)
	v.Installations = &n
	return v
}

func (api *API) restListReleases(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		pr, err := c.releaseQuery()
		if err != nil {
			return 0, nil, err
		}
		out := []Release{}
		for _, r := range c.st.ReleasesOf(a) {
			if releaseVisible(c.u, r) {
				out = append(out, c.releaseInProject(r, pr))
			}
		}
		return http.StatusOK, out, nil
	})
}

func (api *API) restGetRelease(c *restCall) (int, any, *apiError) {
	return api.read(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		pr, err := c.releaseQuery()
		if err != nil {
			return 0, nil, err
		}
		r, err := c.pathRelease(a)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, c.releaseInProject(r, pr), nil
	})
}

func (api *API) restDeleteRelease(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		r, err := c.pathRelease(a)
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		if r.Status == registry.ReleaseBuilding {
			return 0, nil, conflict(wire.CodeBuildInProgress, "release %d is still building; cancel it first", r.Key)
		}
		if c.st.ReleaseInUse(r) {
			return 0, nil, conflict(wire.CodeInUse, "release %d is installed on devices or groups", r.Key)
		}
		c.st.DeleteRelease(r)
		return http.StatusNoContent, nil, nil
	})
}

func (api *API) restCancelRelease(c *restCall) (int, any, *apiError) {
	return api.write(c, func() (int, any, *apiError) {
		a, err := c.pathApp()
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		r := c.st.Building(a)
		if r == nil {
			return 0, nil, conflict(wire.CodeNoBuildInProgress, "app %d has no build in progress", a.Key)
		}
		c.st.CancelBuild(r)
		return http.StatusOK, releaseViewOf(r), nil
	})
}
