// This file holds devices in Go: AddDevice, DeviceByKey and the Device
// handle.

package platformtest

import "github.com/flockgo/ironflock/platformtest/internal/registry"

// Device is a registered device.
type Device struct {
	p *Platform
	m *registry.Device
}

func (p *Platform) device(m *registry.Device) *Device {
	return handle(p, m, func() *Device { return &Device{p: p, m: m} })
}

// Key returns the device key.
func (d *Device) Key() int { return d.m.Key }

// Name returns the device name.
func (d *Device) Name() string { return d.m.Name }

// Serial returns the device serial number.
func (d *Device) Serial() string { return d.m.Serial }

// Project returns the project the device belongs to.
func (d *Device) Project() *Project { return d.p.project(d.m.Project) }

// AddDevice adds a device. Options: Key, Serial, InProject (default: the
// project "default", created on first use).
func (p *Platform) AddDevice(name string, opts ...ProvisionOption) *Device {
	if p.tb != nil {
		p.tb.Helper()
	}
	var m *registry.Device
	p.provision(func(s *registry.State) (err error) {
		m, err = s.AddDevice(name, specOf(opts))
		return err
	})
	return p.device(m)
}

// DeviceByKey returns the device with the given key, nil when there is
// none (a device created over the management API, for one).
func (p *Platform) DeviceByKey(key int) *Device {
	var m *registry.Device
	p.reg.View(func(s *registry.State) { m = s.Device(key) })
	return p.device(m)
}
