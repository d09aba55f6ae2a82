// This file holds the state of an app on a device as the management API
// shows it: the installed release, the target state (what the user asked
// for) and the current state (what the device agent reports), and whether
// the installation is inherited from a group. The fake's device agent is
// instantaneous: a new target state is the current state at once, unless a
// test sets the current state itself (SetCurrentState).

package platformtest

import (
	"cmp"
	"fmt"
	"slices"
)

// AppState is the state of an app on a device.
type AppState string

// The states of an app on a device. A user may ask for AppRunning,
// AppStopped or AppPresent (downloaded, not started); the others are
// reported by the device agent on the way.
const (
	AppRunning     AppState = "RUNNING"
	AppStopped     AppState = "STOPPED"
	AppPresent     AppState = "PRESENT"
	AppDownloading AppState = "DOWNLOADING"
	AppStarting    AppState = "STARTING"
	AppStopping    AppState = "STOPPING"
	AppFailed      AppState = "FAILED"
	AppRemoved     AppState = "REMOVED"
)

// targetStates are the states a user may ask for.
var targetStates = []AppState{AppRunning, AppStopped, AppPresent}

// allAppStates are every state an agent may report.
var allAppStates = []AppState{AppRunning, AppStopped, AppPresent, AppDownloading, AppStarting, AppStopping, AppFailed, AppRemoved}

// TargetState returns the state the user asked for (AppRunning unless
// changed over the management API).
func (in *Installation) TargetState() AppState {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	return in.target
}

// CurrentState returns the state the device agent reports.
func (in *Installation) CurrentState() AppState {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	if in.removed {
		return AppRemoved
	}
	return in.current
}

// SetCurrentState makes the device agent report state s, as a real agent
// does while it downloads, starts or stops an app, or when the app fails.
// A device with an app DOWNLOADING, STARTING or STOPPING and no joined
// session is CONFIGURING. The next target state set over the management
// API replaces it.
func (in *Installation) SetCurrentState(s AppState) {
	if !slices.Contains(allAppStates, s) {
		if in.p.tb != nil {
			in.p.tb.Helper()
		}
		in.p.fail(fmt.Errorf("set current state: unknown app state %q", s))
		return
	}
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	in.current = s
}

// ReleaseKey returns the key of the installed release, 0 when the app had
// no READY release when it was installed in Go.
func (in *Installation) ReleaseKey() int {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	if in.release == nil {
		return 0
	}
	return in.release.key
}

// Inherited reports whether the installation comes from a group the
// device is a member of.
func (in *Installation) Inherited() bool {
	in.p.mu.Lock()
	defer in.p.mu.Unlock()
	return in.group != nil
}

// initInstallStateLocked gives a new installation the app's newest READY
// release and the state RUNNING.
func (p *Platform) initInstallStateLocked(in *Installation) {
	in.release = p.newestReadyLocked(in.app)
	in.target, in.current = AppRunning, AppRunning
}

// setTargetLocked sets the target state (the current state follows at
// once) and, when rel is not nil, the release.
func (in *Installation) setTargetLocked(target AppState, rel *release) {
	in.target, in.current = target, target
	if rel != nil {
		in.release = rel
	}
}

// removeInstallLocked uninstalls: the credentials stop working for new
// sessions; joined sessions and the realm stay.
func (p *Platform) removeInstallLocked(in *Installation) {
	k := instKey{in.device.key, in.app.key, in.stage}
	if p.st.installs[k] == in {
		delete(p.st.installs, k)
	}
	in.removed = true
	p.log.Info("uninstalled", "app", in.app.name, "device", in.device.name, "stage", string(in.stage))
}

// deviceInstallsLocked returns the installations on d, ordered by app key
// and stage.
func (p *Platform) deviceInstallsLocked(d *Device) []*Installation {
	var out []*Installation
	for _, in := range p.st.installs {
		if in.device == d {
			out = append(out, in)
		}
	}
	slices.SortFunc(out, func(a, b *Installation) int {
		if c := cmp.Compare(a.app.key, b.app.key); c != 0 {
			return c
		}
		return cmp.Compare(a.stage, b.stage)
	})
	return out
}

// installsOfLocked returns the installations of app key appKey on d, in
// either stage, ordered by stage.
func (p *Platform) installsOfLocked(d *Device, appKey int) []*Installation {
	var out []*Installation
	for _, st := range []Stage{Dev, Prod} {
		if in := p.st.installs[instKey{d.key, appKey, st}]; in != nil {
			out = append(out, in)
		}
	}
	return out
}
