// This file holds devices: creation (one at a time in Go, or in bulk, all
// or nothing, over the management API), lookups, deletion, and the parts
// of a device's status the model knows (its groups, whether an app is
// being configured).

package registry

import (
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// DefaultProjectName is the project AddDevice uses without a project.
const DefaultProjectName = "default"

// SerialPattern is what a serial number must match.
var SerialPattern = regexp.MustCompile(`^\S+$`)

// Device is a registered device.
type Device struct {
	Key     int      `json:"key"`
	Name    string   `json:"name"`
	Serial  string   `json:"serial"`
	Project *Project `json:"-"`        // kept by its key (records.go)
	CredKey string   `json:"cred_key"` // app_cred_key: the key of its per-app credentials

	Description  string    `json:"description,omitempty"`
	Architecture string    `json:"architecture,omitempty"`
	Created      time.Time `json:"created,omitzero"`
	Seeded       bool      `json:"seeded,omitempty"`

	Location *Location `json:"location,omitempty"` // location.go; nil before the first update
}

// AddDevice adds a device. Spec: Key, Serial, Project (default: the
// project "default", created on first use).
func (s *State) AddDevice(name string, spec Spec) (*Device, error) {
	if err := CheckName("device", name, 63); err != nil {
		return nil, err
	}
	pr := spec.Project
	if pr != nil && !s.HasProject(pr) {
		return nil, fmt.Errorf("device %q: project %q is not on this platform", name, pr.Name)
	}
	if pr == nil {
		if pr = s.ProjectByName(DefaultProjectName); pr == nil {
			var err error
			if pr, err = s.AddProject(DefaultProjectName, Spec{}); err != nil {
				return nil, err
			}
		}
	}
	if s.byName[deviceName{pr, name}] != nil {
		return nil, fmt.Errorf("device %q exists in project %q", name, pr.Name)
	}
	serial := spec.Serial
	if !spec.SerialSet {
		serial = NewUUID()
	} else if !SerialPattern.MatchString(serial) {
		return nil, fmt.Errorf("device %q: serial %q must be non-empty without spaces", name, serial)
	}
	if s.DeviceBySerial(serial) != nil {
		return nil, fmt.Errorf("device %q: serial %q is taken", name, serial)
	}
	key, err := s.allocKey("device", spec, func(k int) bool { return s.devices[k] != nil })
	if err != nil {
		return nil, err
	}
	d := &Device{Key: key, Name: name, Serial: serial, Project: pr, CredKey: RandomHex(32), Created: s.Now()}
	s.putDevice(d)
	s.touchDevice(d)
	return d, nil
}

// Device returns the device with the given key, or nil.
func (s *State) Device(key int) *Device { return s.devices[key] }

// HasDevice reports whether d is a device of this registry.
func (s *State) HasDevice(d *Device) bool { return d != nil && s.devices[d.Key] == d }

// Devices returns every device, ordered by key.
func (s *State) Devices() []*Device { return sortedByKey(s.devices) }

// DeviceBySerial returns the device with the given serial, or nil: one
// map lookup, whatever the number of devices.
func (s *State) DeviceBySerial(serial string) *Device { return s.bySerial[serial] }

// DeviceNamed returns the device of pr with the given name, or nil.
func (s *State) DeviceNamed(pr *Project, name string) *Device { return s.byName[deviceName{pr, name}] }

// deviceName keys the devices by project and name.
type deviceName struct {
	pr   *Project
	name string
}

// putDevice adds d to the devices and their indexes.
func (s *State) putDevice(d *Device) {
	s.devices[d.Key] = d
	s.bySerial[d.Serial] = d
	s.byName[deviceName{d.Project, d.Name}] = d
}

// dropDevice removes d from the devices and their indexes.
func (s *State) dropDevice(d *Device) {
	delete(s.devices, d.Key)
	if s.bySerial[d.Serial] == d {
		delete(s.bySerial, d.Serial)
	}
	if k := (deviceName{d.Project, d.Name}); s.byName[k] == d {
		delete(s.byName, k)
	}
}

// NewDevice is one device of a creation request.
type NewDevice struct {
	Name, Description, Architecture string
}

// CreateDevices adds devices to pr, all or none.
func (s *State) CreateDevices(pr *Project, specs []NewDevice) ([]*Device, error) {
	var out []*Device
	for _, nd := range specs {
		d, err := s.AddDevice(nd.Name, Spec{Project: pr})
		if err != nil {
			for _, d := range out {
				s.dropDevice(d)
			}
			return nil, err
		}
		d.Description, d.Architecture = nd.Description, nd.Architecture
		out = append(out, d)
	}
	for _, d := range out {
		s.EntityInfo("device created", "device", d.Name, "key", d.Key, "project", pr.Name)
	}
	return out, nil
}

// DeleteDevice removes d: its installations, its group memberships and
// the device. Joined sessions stay, as after an uninstall. It costs what
// d's installations and the groups' members do, not what the fleet does
// (index.go).
func (s *State) DeleteDevice(d *Device) {
	for _, in := range s.DeviceInstalls(d) {
		s.RemoveInstall(in)
	}
	for _, g := range s.groups {
		if slices.Contains(g.Devices, d) {
			g.Devices = slices.DeleteFunc(g.Devices, func(m *Device) bool { return m == d })
			s.touchGroup(g)
		}
	}
	s.dropDevice(d)
	s.touchDevice(d)
	s.EntityInfo("device deleted", "device", d.Name, "key", d.Key)
}

// GroupKeys returns the keys of the groups d is a member of, in order;
// never nil.
func (s *State) GroupKeys(d *Device) []int {
	keys := []int{}
	for _, g := range s.groups {
		if slices.Contains(g.Devices, d) {
			keys = append(keys, g.Key)
		}
	}
	slices.Sort(keys)
	return keys
}

// Configuring reports whether an app of d is downloading, starting or
// stopping: without a joined session, the device is CONFIGURING.
func (s *State) Configuring(d *Device) bool {
	for _, in := range s.byDevice[d.Key] {
		if in.Device == d {
			switch in.Current {
			case wire.AppStateDownloading, wire.AppStateStarting, wire.AppStateStopping:
				return true
			}
		}
	}
	return false
}
