// This file is the facade of the location service (package
// internal/location, attached to every realm as a service): the option
// for a platform without it and a device's stored position. It serves no
// URI of its own.

package platformtest

import (
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Location is a device's position as the location service stored it.
type Location struct {
	Long      float64   // longitude in degrees, -180 to 180
	Lat       float64   // latitude in degrees, -90 to 90
	UpdatedAt time.Time // platform time of the update, in UTC
}

// WithoutLocationService makes a platform without the location service:
// ironflock.location_service.update is not registered, so calls
// (client.SetDeviceLocation) answer wamp.error.no_such_procedure, as on a
// platform that does not serve it, and no device gets a location.
func WithoutLocationService() Option { return func(s *settings) { s.noLocation = true } }

// Location returns the device's position, as the last
// ironflock.location_service.update of one of its sessions set it, and
// false before the first update. Only the current position is kept.
func (d *Device) Location() (Location, bool) {
	var loc *registry.Location
	d.p.reg.View(func(s *registry.State) {
		if d.m.Location != nil {
			l := *d.m.Location
			loc = &l
		}
	})
	if loc == nil {
		return Location{}, false
	}
	return Location{Long: loc.Long, Lat: loc.Lat, UpdatedAt: loc.Updated.UTC()}, true
}
