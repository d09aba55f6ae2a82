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

package platformtest

import (
	"math"
	"net/http"
	"regexp"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/template"
)

func (p *Platform) routeReleases(route func(string, restFunc)) {
	route("POST /apps/{app_key}/releases", p.restCreateRelease)
	route("GET /apps/{app_key}/releases", p.restListReleases)
	route("GET /apps/{app_key}/releases/{release_key}", p.restGetRelease)
	route("DELETE /apps/{app_key}/releases/{release_key}", p.restDeleteRelease)
	route("POST /apps/{app_key}/releases/cancel", p.restCancelRelease)
}

// semverPattern is the pattern of semver.org for a version.
var semverPattern = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?` +
	`(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// maxVersion bounds the length of a version.
const maxVersion = 128

// releaseVisible reports whether u may see r: the owner of its app sees
// every release, other users the READY ones.
func releaseVisible(u *user, r *release) bool {
	return r.app.owner == u || r.status == releaseReady
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

func (p *Platform) restCreateRelease(c *restCall) (int, any, *apiError) {
	body, err := readBody(c.w, c.r)
	if err != nil {
		return 0, nil, err
	}
	var wait bool
	var timeout float64
	_, _, err = p.restRead(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
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
	var r *release
	status, view, err := p.restWrite(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil { // deleted meanwhile
			return 0, nil, err
		}
		if b := p.buildingLocked(a); b != nil {
			return 0, nil, conflict(codeBuildInProgress, "app %d has a build in progress (release %d); cancel it or wait", a.key, b.key)
		}
		for _, old := range p.releasesOfLocked(a) {
			if old.version == nr.version {
				return 0, nil, conflict(codeAlreadyExists, "app %d has a release %s already (release %d)", a.key, nr.version, old.key)
			}
		}
		r = p.startBuildLocked(a, nr.version, nr.data, nr.ai, nr.failure)
		return http.StatusAccepted, releaseViewLocked(r), nil
	})
	if err != nil || !wait {
		return status, view, err
	}
	return p.waitBuild(c, r, timeout)
}

// waitBuild waits until r's build ends (201), or timeout seconds of
// platform time pass first (202 with Retry-After; 0 waits without limit).
func (p *Platform) waitBuild(c *restCall, r *release, timeout float64) (int, any, *apiError) {
	var expired <-chan time.Time
	if timeout > 0 {
		expired = p.clock.After(time.Duration(timeout * float64(time.Second)))
	}
	p.mu.Lock()
	r.waiters++
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		r.waiters--
		p.mu.Unlock()
	}()
	for {
		p.mu.Lock()
		p.settleLocked()
		v, status, left, done := releaseViewLocked(r), r.status, r.finishAt.Sub(p.clock.Now()), r.done
		p.mu.Unlock()
		if status != releaseBuilding {
			return http.StatusCreated, v, nil
		}
		select {
		case <-p.clock.After(left):
		case <-done:
		case <-expired:
			p.mu.Lock()
			p.settleLocked()
			v, status, left = releaseViewLocked(r), r.status, r.finishAt.Sub(p.clock.Now())
			p.mu.Unlock()
			if status != releaseBuilding {
				return http.StatusCreated, v, nil
			}
			c.w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(left.Seconds())))))
			return http.StatusAccepted, v, nil
		case <-c.r.Context().Done(): // the client is gone: nobody reads the answer
			return http.StatusAccepted, v, nil
		}
	}
}

// releaseQueryLocked reads the required swarm_key of the release reads: a
// project the user can see.
func (p *Platform) releaseQueryLocked(c *restCall) (*Project, *apiError) {
	k, err := queryKey(c.r, "swarm_key")
	if err != nil {
		return nil, err
	}
	return p.projectLocked(c.u, k)
}

// pathReleaseLocked returns the release of the path's release_key when it
// is a release of a the user can see (404).
func (p *Platform) pathReleaseLocked(c *restCall, a *App) (*release, *apiError) {
	k, err := pathKey(c.r, "release_key", "release")
	if err != nil {
		return nil, err
	}
	r := p.st.releases[k]
	if r == nil || r.app != a || !releaseVisible(c.u, r) {
		return nil, notFound("release %d of app %d not found", k, a.key)
	}
	return r, nil
}

func (p *Platform) releaseInProjectLocked(r *release, pr *Project) releaseView {
	v := releaseViewLocked(r)
	n := p.installCountLocked(r, pr)
	v.Installations = &n
	return v
}

func (p *Platform) restListReleases(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil {
			return 0, nil, err
		}
		pr, err := p.releaseQueryLocked(c)
		if err != nil {
			return 0, nil, err
		}
		out := []releaseView{}
		for _, r := range p.releasesOfLocked(a) {
			if releaseVisible(c.u, r) {
				out = append(out, p.releaseInProjectLocked(r, pr))
			}
		}
		return http.StatusOK, out, nil
	})
}

func (p *Platform) restGetRelease(c *restCall) (int, any, *apiError) {
	return p.restRead(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil {
			return 0, nil, err
		}
		pr, err := p.releaseQueryLocked(c)
		if err != nil {
			return 0, nil, err
		}
		r, err := p.pathReleaseLocked(c, a)
		if err != nil {
			return 0, nil, err
		}
		return http.StatusOK, p.releaseInProjectLocked(r, pr), nil
	})
}

func (p *Platform) restDeleteRelease(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil {
			return 0, nil, err
		}
		r, err := p.pathReleaseLocked(c, a)
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		if r.status == releaseBuilding {
			return 0, nil, conflict(codeBuildInProgress, "release %d is still building; cancel it first", r.key)
		}
		if p.releaseInUseLocked(r) {
			return 0, nil, conflict(codeInUse, "release %d is installed on devices or groups", r.key)
		}
		p.deleteReleaseLocked(r)
		return http.StatusNoContent, nil, nil
	})
}

func (p *Platform) restCancelRelease(c *restCall) (int, any, *apiError) {
	return p.restWrite(func() (int, any, *apiError) {
		a, err := p.pathAppLocked(c)
		if err != nil {
			return 0, nil, err
		}
		if err := requireOwner(c.u, a); err != nil {
			return 0, nil, err
		}
		r := p.buildingLocked(a)
		if r == nil {
			return 0, nil, conflict(codeNoBuildInProgress, "app %d has no build in progress", a.key)
		}
		p.cancelBuildLocked(r)
		return http.StatusOK, releaseViewLocked(r), nil
	})
}
