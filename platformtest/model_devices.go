// This file holds what the management API adds to devices: their status
// (from the joined sessions), their groups, creation in bulk (all or
// nothing), deletion, and the Go lookups DeviceByKey and InstallationOf.

package platformtest

import (
	"slices"
)

// Device statuses of the management API.
const (
	deviceConnected    = "CONNECTED"
	deviceDisconnected = "DISCONNECTED"
	deviceConfiguring  = "CONFIGURING"
)

// deviceStatusLocked returns CONNECTED while a session of d is joined,
// else CONFIGURING while an app of d is downloading, starting or stopping,
// else DISCONNECTED.
func (p *Platform) deviceStatusLocked(d *Device) string {
	for _, s := range p.sessions {
		if s.active && s.device == d {
			return deviceConnected
		}
	}
	for _, in := range p.st.installs {
		if in.device == d && (in.current == AppDownloading || in.current == AppStarting || in.current == AppStopping) {
			return deviceConfiguring
		}
	}
	return deviceDisconnected
}

// groupKeysLocked returns the keys of the groups d is a member of, in
// order; never nil.
func (p *Platform) groupKeysLocked(d *Device) []int {
	keys := []int{}
	for _, g := range p.st.groups {
		if slices.Contains(g.devices, d) {
			keys = append(keys, g.key)
		}
	}
	slices.Sort(keys)
	return keys
}

// newDevice is one device of a creation request.
type newDevice struct {
	name, description, architecture string
}

// createDevicesLocked adds devices to pr, all or none.
func (p *Platform) createDevicesLocked(pr *Project, specs []newDevice) ([]*Device, error) {
	var out []*Device
	for _, s := range specs {
		d, err := p.addDeviceLocked(s.name, provisionSpec{project: pr})
		if err != nil {
			for _, d := range out {
				delete(p.st.devices, d.key)
			}
			return nil, err
		}
		d.description, d.architecture = s.description, s.architecture
		out = append(out, d)
	}
	for _, d := range out {
		p.log.Info("device created", "device", d.name, "key", d.key, "project", pr.name)
	}
	return out, nil
}

// deleteDeviceLocked removes d: its installations, its group memberships
// and the device. Joined sessions stay, as after an uninstall.
func (p *Platform) deleteDeviceLocked(d *Device) {
	for _, in := range p.deviceInstallsLocked(d) {
		p.removeInstallLocked(in)
	}
	for _, g := range p.st.groups {
		g.devices = slices.DeleteFunc(g.devices, func(m *Device) bool { return m == d })
	}
	delete(p.st.devices, d.key)
	p.log.Info("device deleted", "device", d.name, "key", d.key)
}

// DeviceByKey returns the device with the given key, nil when there is
// none (a device created over the management API, for one).
func (p *Platform) DeviceByKey(key int) *Device {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.devices[key]
}

// InstallationOf returns the installation of app appKey on device
// deviceKey in stage, nil when there is none. It gives a test the
// environment (Env) of an app installed over the management API, which
// the API itself never shows: it holds the app's credential.
func (p *Platform) InstallationOf(deviceKey, appKey int, stage Stage) *Installation {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.st.installs[instKey{deviceKey, appKey, stage}]
}
