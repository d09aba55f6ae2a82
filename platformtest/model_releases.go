// This file holds releases: the built versions of an app. A build is a
// state machine on the platform clock: BUILDING until the build duration
// (WithBuildDuration) has passed in platform time, then READY, or FAILED
// when a template did not validate; CANCELED when cancelled first. The
// state is settled lazily (settleLocked) by whoever looks, so no goroutine
// runs a build. Apps provisioned in Go or by a seed get a READY release
// 1.0.0 holding their templates.

package platformtest

import (
	"cmp"
	"slices"
	"time"
)

// Release statuses.
const (
	releaseBuilding = "BUILDING"
	releaseReady    = "READY"
	releaseFailed   = "FAILED"
	releaseCanceled = "CANCELED"
)

// initialVersion is the version of the release an app provisioned in Go
// or by a seed starts with.
const initialVersion = "1.0.0"

// release is a version of an app. Guarded by p.mu.
type release struct {
	key          int
	app          *App
	version      string
	dataTemplate string
	aiTemplate   string
	created      time.Time

	status   string
	errMsg   string    // why the build failed
	finishAt time.Time // platform time at which a build ends
	finished time.Time // zero while BUILDING
	outcome  string    // READY or FAILED, decided when the build starts
	outErr   string    // the validator's message when outcome is FAILED
	done     chan struct{}
	waiters  int // requests waiting for the build (tests synchronise on it)
}

// WithBuildDuration sets how long a release build takes in platform time:
// a release stays BUILDING until the platform clock has moved that far
// (Clock().Advance moves it at once). The default, 0, ends a build at the
// first look after it started.
func WithBuildDuration(d time.Duration) Option {
	return func(s *settings) { s.build = max(d, 0) }
}

// addInitialReleaseLocked gives an app provisioned in Go or by a seed a
// READY release holding its templates.
func (p *Platform) addInitialReleaseLocked(a *App) {
	now := p.clock.Now()
	r := p.newReleaseLocked(a, initialVersion, a.dataTemplate, a.aiTemplate, now)
	r.status, r.outcome, r.finishAt, r.finished = releaseReady, releaseReady, now, now
}

func (p *Platform) newReleaseLocked(a *App, version, data, ai string, now time.Time) *release {
	key, _ := p.allocKeyLocked("release", provisionSpec{}, func(k int) bool { return p.st.releases[k] != nil })
	r := &release{
		key: key, app: a, version: version, dataTemplate: data, aiTemplate: ai,
		created: now, done: make(chan struct{}),
	}
	p.st.releases[key] = r
	return r
}

// startBuildLocked creates a BUILDING release. failure is the validator's
// message when a template is invalid ("" when both are valid): the build
// then ends FAILED with it.
func (p *Platform) startBuildLocked(a *App, version, data, ai, failure string) *release {
	now := p.clock.Now()
	r := p.newReleaseLocked(a, version, data, ai, now)
	r.status, r.outcome, r.outErr = releaseBuilding, releaseReady, failure
	if failure != "" {
		r.outcome = releaseFailed
	}
	r.finishAt = now.Add(p.set.build)
	p.log.Info("release build started", "app", a.name, "version", version, "release", r.key)
	return r
}

// settleLocked ends every build whose time has come.
func (p *Platform) settleLocked() {
	now := p.clock.Now()
	for _, r := range p.st.releases {
		if r.status == releaseBuilding && !now.Before(r.finishAt) {
			r.status, r.errMsg, r.finished = r.outcome, r.outErr, r.finishAt
			close(r.done)
			if r.status == releaseReady {
				p.followNewestReadyLocked(r.app)
			}
			p.log.Info("release build ended", "app", r.app.name, "version", r.version, "status", r.status)
		}
	}
}

// cancelBuildLocked ends a BUILDING release as CANCELED.
func (p *Platform) cancelBuildLocked(r *release) {
	r.status, r.finished = releaseCanceled, p.clock.Now()
	close(r.done)
	p.log.Info("release build canceled", "app", r.app.name, "version", r.version)
}

// deleteReleaseLocked forgets a release that is not BUILDING.
func (p *Platform) deleteReleaseLocked(r *release) {
	delete(p.st.releases, r.key)
	p.followNewestReadyLocked(r.app)
}

// followNewestReadyLocked makes the app's templates those of its newest
// READY release; unchanged when it has none.
func (p *Platform) followNewestReadyLocked(a *App) {
	if r := p.newestReadyLocked(a); r != nil {
		a.dataTemplate, a.aiTemplate = r.dataTemplate, r.aiTemplate
	}
}

// releasesOfLocked returns the releases of a, ordered by key.
func (p *Platform) releasesOfLocked(a *App) []*release {
	var out []*release
	for _, r := range p.st.releases {
		if r.app == a {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y *release) int { return cmp.Compare(x.key, y.key) })
	return out
}

// newestReadyLocked returns the READY release of a with the highest key,
// or nil.
func (p *Platform) newestReadyLocked(a *App) *release {
	var best *release
	for _, r := range p.st.releases {
		if r.app == a && r.status == releaseReady && (best == nil || r.key > best.key) {
			best = r
		}
	}
	return best
}

// buildingLocked returns a's build in progress, or nil.
func (p *Platform) buildingLocked(a *App) *release {
	for _, r := range p.st.releases {
		if r.app == a && r.status == releaseBuilding {
			return r
		}
	}
	return nil
}

// releasedLocked reports whether a has a READY release.
func (p *Platform) releasedLocked(a *App) bool { return p.newestReadyLocked(a) != nil }

// releaseInUseLocked reports whether a device or a group runs r.
func (p *Platform) releaseInUseLocked(r *release) bool {
	for _, in := range p.st.installs {
		if in.release == r {
			return true
		}
	}
	for _, g := range p.st.groups {
		for _, ga := range g.apps {
			if ga.release == r {
				return true
			}
		}
	}
	return false
}

// installCountLocked returns how many devices of project pr have release
// r installed, in any stage and state.
func (p *Platform) installCountLocked(r *release, pr *Project) int {
	devices := map[*Device]bool{}
	for _, in := range p.st.installs {
		if in.release == r && in.device.project == pr {
			devices[in.device] = true
		}
	}
	return len(devices)
}
