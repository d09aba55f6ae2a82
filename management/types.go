// This file holds the resources of the API (docs/fake.md §9) and the
// bodies of the requests that create or change them, with their JSON
// names.

package management

import (
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// DeviceStatus is the connection status of a device.
type DeviceStatus string

// Device statuses: connected while any app session of the device is
// joined.
const (
	DeviceConnected    DeviceStatus = wire.DeviceConnected
	DeviceDisconnected DeviceStatus = wire.DeviceDisconnected
	DeviceConfiguring  DeviceStatus = wire.DeviceConfiguring
)

// Stage is the stage an app is installed in.
type Stage string

// Stages.
const (
	Dev  Stage = wire.StageDev
	Prod Stage = wire.StageProd
)

// AppState is the state of an app on a device.
type AppState string

// App states. A target state is Running, Stopped or Present.
const (
	Running     AppState = wire.AppStateRunning
	Stopped     AppState = wire.AppStateStopped
	Present     AppState = wire.AppStatePresent
	Downloading AppState = wire.AppStateDownloading
	Starting    AppState = wire.AppStateStarting
	Stopping    AppState = wire.AppStateStopping
	Failed      AppState = wire.AppStateFailed
	Removed     AppState = wire.AppStateRemoved
)

// ReleaseStatus is the status of a release build.
type ReleaseStatus string

// Release statuses.
const (
	StatusBuilding ReleaseStatus = wire.ReleaseBuilding
	StatusReady    ReleaseStatus = wire.ReleaseReady
	StatusFailed   ReleaseStatus = wire.ReleaseFailed
	StatusCanceled ReleaseStatus = wire.ReleaseCanceled
)

// Device is a device of a project.
type Device struct {
	DeviceKey    int          `json:"device_key"`
	SwarmKey     int          `json:"swarm_key"`
	SerialNumber string       `json:"serial_number"`
	Name         string       `json:"name"`
	Description  string       `json:"description"`
	Architecture string       `json:"architecture"`
	Status       DeviceStatus `json:"status"`
	GroupKeys    []int        `json:"group_keys"`
	CreatedAt    time.Time    `json:"created_at"`
	// Location is where the device's apps last put it
	// (client.SetDeviceLocation); nil before the first update.
	Location *Location `json:"location"`
}

// Location is a device's position, as its apps set it. Only the current
// position is kept, no history.
type Location struct {
	Long      float64   `json:"long"`       // longitude in degrees, -180 to 180
	Lat       float64   `json:"lat"`        // latitude in degrees, -90 to 90
	UpdatedAt time.Time `json:"updated_at"` // when it was set, in UTC (millisecond precision)
}

// NewDevice is a device to create.
type NewDevice struct {
	Name         string `json:"name"` // 1 to 63 characters, unique in the project
	Description  string `json:"description,omitempty"`
	Architecture string `json:"architecture,omitempty"`
}

// DeviceApp is an app installed on a device.
type DeviceApp struct {
	DeviceKey        int      `json:"device_key"`
	AppKey           int      `json:"app_key"`
	AppName          string   `json:"app_name"`
	ReleaseKey       int      `json:"release_key"` // 0 when the API reports none (null)
	Stage            Stage    `json:"stage"`
	CurrentState     AppState `json:"current_state"`
	TargetState      AppState `json:"target_state"`
	InheritFromGroup bool     `json:"inherit_from_group"`
}

// Install asks for an app on a device.
type Install struct {
	AppKey     int   `json:"app_key"`
	Stage      Stage `json:"stage,omitempty"`       // default Prod
	ReleaseKey int   `json:"release_key,omitempty"` // default: the newest READY release
}

// StateChange changes an app on a device.
type StateChange struct {
	TargetState AppState `json:"target_state"`          // Running, Stopped or Present
	ReleaseKey  int      `json:"release_key,omitempty"` // 0: keep the release
	// Stage names the installation when the app is installed in both
	// stages (sent as ?stage=); "" otherwise.
	Stage Stage `json:"-"`
}

// App is an app.
type App struct {
	AppKey      int       `json:"app_key"`
	Name        string    `json:"name"`
	Description string    `json:"description"`
	Released    bool      `json:"released"` // it has a READY release
	CreatedAt   time.Time `json:"created_at"`
}

// NewApp is an app to create.
type NewApp struct {
	Name        string `json:"name"` // 1-63 of [A-Za-z0-9._-], unique per owner
	Description string `json:"description,omitempty"`
}

// Release is a built version of an app.
type Release struct {
	ReleaseKey int           `json:"release_key"`
	AppKey     int           `json:"app_key"`
	Version    string        `json:"version"`
	Status     ReleaseStatus `json:"status"`
	Error      string        `json:"error,omitempty"` // why the build FAILED
	CreatedAt  time.Time     `json:"created_at"`
	FinishedAt *time.Time    `json:"finished_at,omitempty"` // nil while BUILDING
	// Installations is how many devices of the project named in the read
	// (swarm_key) run the release; 0 in the answers of CreateRelease and
	// CancelRelease.
	Installations int `json:"installations,omitempty"`
}

// NewRelease is a version to build.
type NewRelease struct {
	Version      string `json:"version"`                 // a semantic version, unique per app
	DataTemplate string `json:"data_template,omitempty"` // YAML of .ironflock/data-template.yml
	AITemplate   string `json:"ai_template,omitempty"`   // YAML of .ironflock/ai-template.yml
}

// Group is a group of devices of a project.
type Group struct {
	GroupKey   int        `json:"group_key"`
	SwarmKey   int        `json:"swarm_key"`
	Name       string     `json:"name"`
	DeviceKeys []int      `json:"device_keys"`
	Apps       []GroupApp `json:"apps"`
}

// GroupApp is an app installed on a group, and so on its members.
type GroupApp struct {
	AppKey      int      `json:"app_key"`
	ReleaseKey  int      `json:"release_key"`
	Stage       Stage    `json:"stage"`
	TargetState AppState `json:"target_state"`
}

// GroupInstall asks for an app on a group.
type GroupInstall struct {
	AppKey     int   `json:"app_key"`
	ReleaseKey int   `json:"release_key,omitempty"` // default: the newest READY release
	Stage      Stage `json:"stage,omitempty"`       // default Prod
}

// GroupAppChange changes an app on a group; at least one field is set.
type GroupAppChange struct {
	ReleaseKey  int      `json:"release_key,omitempty"`
	TargetState AppState `json:"target_state,omitempty"`
}
