// This file holds the provisioned entities (projects, devices, apps) with
// their accessors, and the options of the Add* methods.

package platformtest

import "time"

// Project is a project (swarm) holding devices.
type Project struct {
	p    *Platform
	key  int
	name string
}

// Key returns the project's swarm key.
func (pr *Project) Key() int { return pr.key }

// Name returns the project's name.
func (pr *Project) Name() string { return pr.name }

// AddDevice adds a device to this project; see Platform.AddDevice.
func (pr *Project) AddDevice(name string, opts ...ProvisionOption) *Device {
	if pr.p.tb != nil {
		pr.p.tb.Helper()
	}
	return pr.p.AddDevice(name, append(opts, InProject(pr))...)
}

// Device is a registered device.
type Device struct {
	p       *Platform
	key     int
	name    string
	serial  string
	project *Project
	credKey string // app_cred_key: the key of its per-app credentials

	// Management API fields (model_devices.go), set at creation.
	description  string
	architecture string
	created      time.Time
}

// Key returns the device key.
func (d *Device) Key() int { return d.key }

// Name returns the device name.
func (d *Device) Name() string { return d.name }

// Serial returns the device serial number.
func (d *Device) Serial() string { return d.serial }

// Project returns the project the device belongs to.
func (d *Device) Project() *Project { return d.project }

// App is an app that can be installed on devices.
type App struct {
	p            *Platform
	key          int
	name         string
	dataTemplate string // guarded by p.mu: follows the newest READY release
	aiTemplate   string // guarded by p.mu, like dataTemplate

	// Management API fields (model_apps.go), set at creation.
	description string
	owner       *user // nil: provisioned in Go or by a seed, owned by no user
	created     time.Time
}

// Key returns the app key.
func (a *App) Key() int { return a.key }

// Name returns the app name.
func (a *App) Name() string { return a.name }

// DataTemplate returns the data template YAML as given, possibly "". A
// release built over the management API that becomes READY replaces it
// with its own data template. (Code holding p.mu reads a.dataTemplate.)
func (a *App) DataTemplate() string {
	a.p.mu.Lock()
	defer a.p.mu.Unlock()
	return a.dataTemplate
}

// ProvisionOption adjusts one AddProject, AddDevice or AddApp call.
type ProvisionOption func(*provisionSpec)

type provisionSpec struct {
	key       int
	keySet    bool
	serial    string
	serialSet bool
	project   *Project
}

// Key sets the key (swarm key, device key or app key) instead of the next
// free one. Keys must be positive and unique per kind.
func Key(n int) ProvisionOption {
	return func(s *provisionSpec) { s.key, s.keySet = n, true }
}

// Serial sets a device's serial number instead of a random UUID.
func Serial(serial string) ProvisionOption {
	return func(s *provisionSpec) { s.serial, s.serialSet = serial, true }
}

// InProject puts a device in pr instead of the project "default".
func InProject(pr *Project) ProvisionOption {
	return func(s *provisionSpec) { s.project = pr }
}

func specOf(opts []ProvisionOption) provisionSpec {
	var s provisionSpec
	for _, o := range opts {
		o(&s)
	}
	return s
}
