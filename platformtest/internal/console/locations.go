// This file draws the device locations of the fleet page: each device's
// position as numbers and a small world map with a pin per located
// device. The map is SVG drawn on the server (an equirectangular
// projection: coarse land outlines from land.go, a grid of meridians and
// parallels, the pins), so it needs no network access, no tiles and no
// JavaScript; it fits the devices and zooms and pans with links
// (mapview.go); the page's data-refresh redraws it while it is open.

package console

import (
	"net/url"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Map geometry: degrees times mapScale pixels.
const (
	mapScale   = 2
	mapW, mapH = 360 * mapScale, 180 * mapScale
)

// locationView is a device's stored position on the fleet page.
type locationView struct {
	Long, Lat float64
	Updated   time.Time
}

// Text is the position as numbers, "long 8.68 · lat 50.11".
func (l locationView) Text() string {
	return "long " + degrees(l.Long) + " · lat " + degrees(l.Lat)
}

// X and Y place the position on the map.
func (l locationView) X() string { return pixels((l.Long + 180) * mapScale) }

// Y places the position on the map.
func (l locationView) Y() string { return pixels((90 - l.Lat) * mapScale) }

// locationOf returns d's location for the page, nil before the first
// update. It runs under the registry's lock.
func locationOf(d *registry.Device) *locationView {
	if d.Location == nil {
		return nil
	}
	return &locationView{Long: d.Location.Long, Lat: d.Location.Lat, Updated: d.Location.Updated}
}

// pin is a located device on the map.
type pin struct {
	Key      int
	Name     string
	Online   bool
	Location locationView
}

// gridLine is a meridian or a parallel with its label.
type gridLine struct {
	X1, Y1, X2, Y2 string
	Axis           bool // the equator or the prime meridian
	Label          string
	LX, LY         string // where the label stands
}

// worldMap is the map of the fleet page.
type worldMap struct {
	W, H     int
	Land     []string // SVG polygon points (land.go)
	Grid     []gridLine
	Pins     []pin
	Unplaced int     // devices without a location
	Paged    bool    // the pins are those of one page of the devices (pager.go)
	View     mapView // the part of the world shown (mapview.go)
	// Inverse is 1/zoom: pins and labels are scaled by it so they keep
	// their size on the screen.
	Inverse  string
	Controls []mapControl
}

// fleetMap draws the located devices of v, fitted to them unless the
// query asks for a view (mapview.go).
func fleetMap(v fleetView, q url.Values) worldMap {
	m := worldMap{W: mapW, H: mapH, Land: landPoints, Paged: v.Pager.Pages > 1}
	for _, p := range v.Projects {
		for _, d := range p.Devices {
			if d.Location == nil {
				m.Unplaced++
				continue
			}
			m.Pins = append(m.Pins, pin{Key: d.Key, Name: d.Name, Online: d.Online, Location: *d.Location})
		}
	}
	view, ok := parseView(q)
	if !ok {
		view = fitView(m.Pins)
	}
	m.View, m.Grid, m.Controls = view, view.grid(), view.controls()
	m.Inverse = strconv.FormatFloat(1/view.Zoom, 'g', 6, 64)
	return m
}

// degrees shows a coordinate as stored, in its shortest exact form.
func degrees(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// pixels shows a map coordinate to two decimals.
func pixels(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }
