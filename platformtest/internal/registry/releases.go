// This file holds releases: the built versions of an app. A build is a
// state machine on the platform clock: BUILDING until the build duration
// has passed in platform time, then READY, or FAILED when a template did
// not validate; CANCELED when cancelled first. The state is settled lazily
// (Settle) by whoever looks, so no goroutine runs a build. Apps
// provisioned in Go or by a seed get a READY release 1.0.0 holding their
// templates.

package registry

import (
	"cmp"
	"slices"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// Release statuses.
const (
	ReleaseBuilding = wire.ReleaseBuilding
	ReleaseReady    = wire.ReleaseReady
	ReleaseFailed   = wire.ReleaseFailed
	ReleaseCanceled = wire.ReleaseCanceled
)

// initialVersion is the version of the release an app provisioned in Go
// or by a seed starts with.
const initialVersion = "1.0.0"

// Release is a version of an app.
type Release struct {
	Key          int       `json:"key"`
	App          *App      `json:"-"` // kept by its key
	Version      string    `json:"version"`
	DataTemplate string    `json:"data_template,omitempty"`
	AITemplate   string    `json:"ai_template,omitempty"`
	Created      time.Time `json:"created,omitzero"`

	Status   string    `json:"status"`
	Err      string    `json:"err,omitempty"`      // why the build failed
	FinishAt time.Time `json:"finish_at,omitzero"` // platform time at which a build ends
	Finished time.Time `json:"finished,omitzero"`  // zero while BUILDING
	outcome  string    // READY or FAILED, decided when the build starts
	outErr   string    // the validator's message when outcome is FAILED
	// Done is closed when the build ends.
	Done chan struct{} `json:"-"`
	// Waiters counts requests waiting for the build (tests synchronise on
	// it).
	Waiters int `json:"-"`
}

// addInitialRelease gives an app provisioned in Go or by a seed a READY
// release holding its templates.
func (s *State) addInitialRelease(a *App) {
	now := s.Now()
	r := s.newRelease(a, initialVersion, a.DataTemplate, a.AITemplate, now)
	r.Status, r.outcome, r.FinishAt, r.Finished = ReleaseReady, ReleaseReady, now, now
}

func (s *State) newRelease(a *App, version, data, ai string, now time.Time) *Release {
	key, _ := s.allocKey("release", Spec{}, func(k int) bool { return s.releases[k] != nil })
	r := &Release{
		Key: key, App: a, Version: version, DataTemplate: data, AITemplate: ai,
		Created: now, Done: make(chan struct{}),
	}
	s.releases[key] = r
	s.touchRelease(r)
	return r
}

// StartBuild creates a BUILDING release. failure is the validator's
// message when a template is invalid ("" when both are valid): the build
// then ends FAILED with it.
func (s *State) StartBuild(a *App, version, data, ai, failure string) *Release {
	now := s.Now()
	r := s.newRelease(a, version, data, ai, now)
	r.Status, r.outcome, r.outErr = ReleaseBuilding, ReleaseReady, failure
	if failure != "" {
		r.outcome = ReleaseFailed
	}
	r.FinishAt = now.Add(s.build)
	s.log.Info("release build started", "app", a.Name, "version", version, "release", r.Key)
	return r
}

// Settle ends every build whose time has come.
func (s *State) Settle() {
	now := s.Now()
	for _, r := range s.releases {
		if r.Status == ReleaseBuilding && !now.Before(r.FinishAt) {
			r.Status, r.Err, r.Finished = r.outcome, r.outErr, r.FinishAt
			close(r.Done)
			s.touchRelease(r)
			if r.Status == ReleaseReady {
				s.followNewestReady(r.App)
			}
			s.log.Info("release build ended", "app", r.App.Name, "version", r.Version, "status", r.Status)
		}
	}
}

// CancelBuild ends a BUILDING release as CANCELED.
func (s *State) CancelBuild(r *Release) {
	r.Status, r.Finished = ReleaseCanceled, s.Now()
	close(r.Done)
	s.touchRelease(r)
	s.log.Info("release build canceled", "app", r.App.Name, "version", r.Version)
}

// DeleteRelease forgets a release that is not BUILDING.
func (s *State) DeleteRelease(r *Release) {
	delete(s.releases, r.Key)
	s.touchRelease(r)
	s.followNewestReady(r.App)
}

// followNewestReady makes the app's templates those of its newest READY
// release; unchanged when it has none.
func (s *State) followNewestReady(a *App) {
	if r := s.NewestReady(a); r != nil && (a.DataTemplate != r.DataTemplate || a.AITemplate != r.AITemplate) {
		a.DataTemplate, a.AITemplate = r.DataTemplate, r.AITemplate
		s.touchApp(a)
	}
}

// Release returns the release with the given key, or nil.
func (s *State) Release(key int) *Release { return s.releases[key] }

// ReleasesOf returns the releases of a, ordered by key.
func (s *State) ReleasesOf(a *App) []*Release {
	var out []*Release
	for _, r := range s.releases {
		if r.App == a {
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(x, y *Release) int { return cmp.Compare(x.Key, y.Key) })
	return out
}

// NewestReady returns the READY release of a with the highest key, or
// nil.
func (s *State) NewestReady(a *App) *Release {
	var best *Release
	for _, r := range s.releases {
		if r.App == a && r.Status == ReleaseReady && (best == nil || r.Key > best.Key) {
			best = r
		}
	}
	return best
}

// Building returns a's build in progress, or nil.
func (s *State) Building(a *App) *Release {
	for _, r := range s.releases {
		if r.App == a && r.Status == ReleaseBuilding {
			return r
		}
	}
	return nil
}

// Released reports whether a has a READY release.
func (s *State) Released(a *App) bool { return s.NewestReady(a) != nil }

// ReleaseInUse reports whether a device or a group runs r.
func (s *State) ReleaseInUse(r *Release) bool {
	for _, in := range s.installs {
		if in.Release == r {
			return true
		}
	}
	for _, g := range s.groups {
		for _, ga := range g.Apps {
			if ga.Release == r {
				return true
			}
		}
	}
	return false
}

// InstallCount returns how many devices of project pr have release r
// installed, in any stage and state.
func (s *State) InstallCount(r *Release, pr *Project) int {
	devices := map[*Device]bool{}
	for _, in := range s.installs {
		if in.Release == r && in.Device.Project == pr {
			devices[in.Device] = true
		}
	}
	return len(devices)
}
