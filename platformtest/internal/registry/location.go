// This file holds a device's location: the position its location service
// last set and when. History is not kept.

package registry

import "time"

// Location is a device's position (degrees) and the platform time it was
// set.
type Location struct {
	Long    float64   `json:"long"`
	Lat     float64   `json:"lat"`
	Updated time.Time `json:"updated"`
}

// SetLocation sets d's position to long, lat at the platform's time,
// replacing the one before, and returns it. The caller has checked the
// ranges.
func (s *State) SetLocation(d *Device, long, lat float64) Location {
	loc := Location{Long: long, Lat: lat, Updated: s.Now()}
	d.Location = &loc
	s.touchDevice(d)
	return loc
}
