// This file holds the JSON resources of the management REST API
// (docs/fake.md §9) and their construction from the model, under the registry's lock. It
// serves no route of its own. Times are RFC 3339 in UTC; lists are ordered
// by key and never null.

package rest

import (
	"slices"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Device is a device.
type Device struct {
	DeviceKey    int       `json:"device_key"`
	SwarmKey     int       `json:"swarm_key"`
	SerialNumber string    `json:"serial_number"`
	Name         string    `json:"name"`
	Description  string    `json:"description"`
	Architecture string    `json:"architecture"`
	Status       string    `json:"status"`
	GroupKeys    []int     `json:"group_keys"`
	CreatedAt    time.Time `json:"created_at"`
	// Location is where the device's location service last put it; nil
	// (null) before the first update.
	Location *Location `json:"location"`
}

// Location is a device's position and when it was set: updated_at in ISO
// 8601 UTC with milliseconds, as the platform writes its timestamps.
type Location struct {
	Long      float64 `json:"long"`
	Lat       float64 `json:"lat"`
	UpdatedAt string  `json:"updated_at"`
}

// isoMillis is the layout of updated_at.
const isoMillis = "2006-01-02T15:04:05.000Z"

func locationView(l *registry.Location) *Location {
	if l == nil {
		return nil
	}
	return &Location{Long: l.Long, Lat: l.Lat, UpdatedAt: l.Updated.UTC().Format(isoMillis)}
}

// deviceStatus returns CONNECTED while a session of d is joined, else
// CONFIGURING while an app of d is downloading, starting or stopping,
// else DISCONNECTED.
func (c *restCall) deviceStatus(d *registry.Device) string {
	switch {
	case c.online[d.Key]:
		return wire.DeviceConnected
	case c.st.Configuring(d):
		return wire.DeviceConfiguring
	}
	return wire.DeviceDisconnected
}

func (c *restCall) deviceView(d *registry.Device) Device {
	return Device{
		DeviceKey: d.Key, SwarmKey: d.Project.Key, SerialNumber: d.Serial, Name: d.Name,
		Description: d.Description, Architecture: d.Architecture,
		Status: c.deviceStatus(d), GroupKeys: c.st.GroupKeys(d), CreatedAt: d.Created.UTC(),
		Location: locationView(d.Location),
	}
}

// DeviceApp is an app on a device.
type DeviceApp struct {
	DeviceKey        int    `json:"device_key"`
	AppKey           int    `json:"app_key"`
	AppName          string `json:"app_name"`
	ReleaseKey       *int   `json:"release_key"` // null: installed in Go without a READY release
	Stage            string `json:"stage"`
	CurrentState     string `json:"current_state"`
	TargetState      string `json:"target_state"`
	InheritFromGroup bool   `json:"inherit_from_group"`
}

func deviceAppViewOf(in *registry.Installation) DeviceApp {
	v := DeviceApp{
		DeviceKey: in.Device.Key, AppKey: in.App.Key, AppName: in.App.Name, Stage: in.Stage,
		CurrentState: in.Current, TargetState: in.Target, InheritFromGroup: in.Group != nil,
	}
	if in.Release != nil {
		k := in.Release.Key
		v.ReleaseKey = &k
	}
	return v
}

// App is an app.
type App struct {
	AppKey      int       `json:"app_key"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Released    bool      `json:"released"`
	CreatedAt   time.Time `json:"created_at"`
}

func (c *restCall) appView(a *registry.App) App {
	return App{AppKey: a.Key, Name: a.Name, Description: a.Description, Released: c.st.Released(a), CreatedAt: a.Created.UTC()}
}

// Release is a release. Installations is set on the reads that name a
// project (swarm_key).
type Release struct {
	ReleaseKey    int        `json:"release_key"`
	AppKey        int        `json:"app_key"`
	Version       string     `json:"version"`
	Status        string     `json:"status"`
	Error         string     `json:"error,omitempty"`
	CreatedAt     time.Time  `json:"created_at"`
	FinishedAt    *time.Time `json:"finished_at,omitempty"`
	Installations *int       `json:"installations,omitempty"`
}

func releaseViewOf(r *registry.Release) Release {
	v := Release{
		ReleaseKey: r.Key, AppKey: r.App.Key, Version: r.Version, Status: r.Status,
		Error: r.Err, CreatedAt: r.Created.UTC(),
	}
	if !r.Finished.IsZero() {
		t := r.Finished.UTC()
		v.FinishedAt = &t
	}
	return v
}

// Group is a group.
type Group struct {
	GroupKey   int        `json:"group_key"`
	SwarmKey   int        `json:"swarm_key"`
	Name       string     `json:"name"`
	DeviceKeys []int      `json:"device_keys"`
	Apps       []GroupApp `json:"apps"`
}

// GroupApp is an app installed on a group.
type GroupApp struct {
	AppKey      int    `json:"app_key"`
	ReleaseKey  int    `json:"release_key"`
	Stage       string `json:"stage"`
	TargetState string `json:"target_state"`
}

func groupViewOf(g *registry.Group) Group {
	v := Group{GroupKey: g.Key, SwarmKey: g.Project.Key, Name: g.Name, DeviceKeys: []int{}, Apps: []GroupApp{}}
	for _, d := range g.Devices {
		v.DeviceKeys = append(v.DeviceKeys, d.Key)
	}
	slices.Sort(v.DeviceKeys)
	for _, ga := range g.Apps {
		v.Apps = append(v.Apps, groupAppViewOf(ga))
	}
	return v
}

func groupAppViewOf(ga *registry.GroupApp) GroupApp {
	return GroupApp{AppKey: ga.App.Key, ReleaseKey: ga.Release.Key, Stage: ga.Stage, TargetState: ga.Target}
}
