// This file holds the JSON resources of the management REST API
// (PLATFORM.md §3) and their construction from the model, under p.mu. It
// serves no route of its own. Times are RFC 3339 in UTC; lists are ordered
// by key and never null.

package platformtest

import (
	"slices"
	"time"
)

// deviceView is a device.
type deviceView struct {
	DeviceKey    int       `json:"device_key"`
	SwarmKey     int       `json:"swarm_key"`
	SerialNumber string    `json:"serial_number"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Architecture string    `json:"architecture"`
	Status       string    `json:"status"`
	GroupKeys    []int     `json:"group_keys"`
	CreatedAt    time.Time `json:"created_at"`
}

func (p *Platform) deviceViewLocked(d *Device) deviceView {
	return deviceView{
		DeviceKey: d.key, SwarmKey: d.project.key, SerialNumber: d.serial, Name: d.name,
		Description: d.description, Architecture: d.architecture,
		Status: p.deviceStatusLocked(d), GroupKeys: p.groupKeysLocked(d), CreatedAt: d.created.UTC(),
	}
}

// deviceAppView is an app on a device.
type deviceAppView struct {
	DeviceKey        int      `json:"device_key"`
	AppKey           int      `json:"app_key"`
	AppName          string   `json:"app_name"`
	ReleaseKey       *int     `json:"release_key"` // null: installed in Go without a READY release
	Stage            Stage    `json:"stage"`
	CurrentState     AppState `json:"current_state"`
	TargetState      AppState `json:"target_state"`
	InheritFromGroup bool     `json:"inherit_from_group"`
}

func deviceAppViewLocked(in *Installation) deviceAppView {
	v := deviceAppView{
		DeviceKey: in.device.key, AppKey: in.app.key, AppName: in.app.name, Stage: in.stage,
		CurrentState: in.current, TargetState: in.target, InheritFromGroup: in.group != nil,
	}
	if in.release != nil {
		k := in.release.key
		v.ReleaseKey = &k
	}
	return v
}

// appView is an app.
type appView struct {
	AppKey      int       `json:"app_key"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Released    bool      `json:"released"`
	CreatedAt   time.Time `json:"created_at"`
}

func (p *Platform) appViewLocked(a *App) appView {
	return appView{AppKey: a.key, Name: a.name, Description: a.description, Released: p.releasedLocked(a), CreatedAt: a.created.UTC()}
}

// releaseView is a release. Installations is set on the reads that name a
// project (swarm_key).
type releaseView struct {
	ReleaseKey    int        `json:"release_key"`
	AppKey        int        `json:"app_key"`
	Version       string     `json:"version"`
	Status        string     `json:"status"`
	Error         string     `json:"error,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
	Installations *int       `json:"installations,omitempty"`
}

func releaseViewLocked(r *release) releaseView {
	v := releaseView{
		ReleaseKey: r.key, AppKey: r.app.key, Version: r.version, Status: r.status,
		Error: r.errMsg, CreatedAt: r.created.UTC(),
	}
	if !r.finished.IsZero() {
		t := r.finished.UTC()
		v.FinishedAt = &t
	}
	return v
}

// groupView is a group.
type groupView struct {
	GroupKey   int            `json:"group_key"`
	SwarmKey   int            `json:"swarm_key"`
	Name       string         `json:"name"`
	DeviceKeys []int          `json:"device_keys"`
	Apps       []groupAppView `json:"apps"`
}

// groupAppView is an app installed on a group.
type groupAppView struct {
	AppKey      int      `json:"app_key"`
	ReleaseKey  int      `json:"release_key"`
	Stage       Stage    `json:"stage"`
	TargetState AppState `json:"target_state"`
}

func groupViewLocked(g *group) groupView {
	v := groupView{GroupKey: g.key, SwarmKey: g.project.key, Name: g.name, DeviceKeys: []int{}, Apps: []groupAppView{}}
	for _, d := range g.devices {
		v.DeviceKeys = append(v.DeviceKeys, d.key)
	}
	slices.Sort(v.DeviceKeys)
	for _, ga := range g.apps {
		v.Apps = append(v.Apps, groupAppViewOf(ga))
	}
	return v
}

func groupAppViewOf(ga *groupApp) groupAppView {
	return groupAppView{AppKey: ga.app.key, ReleaseKey: ga.release.key, Stage: ga.stage, TargetState: ga.target}
}
