// This file holds the provisioned entities (projects, devices, apps) with
// their accessors, and the options of the Add* methods.

package platformtest

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
	dataTemplate string
	aiTemplate   string
}

// Key returns the app key.
func (a *App) Key() int { return a.key }

// Name returns the app name.
func (a *App) Name() string { return a.name }

// DataTemplate returns the data template YAML as given, possibly "".
func (a *App) DataTemplate() string { return a.dataTemplate }

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
