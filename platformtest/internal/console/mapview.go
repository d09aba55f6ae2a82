// This file fits the fleet page's map to the devices it shows and lets
// the user zoom and pan it without a network or a script: the map is the
// same SVG world, seen through a viewBox. With no query the view is the
// bounding box of the located devices (padded, at most maxZoom times the
// whole world); ?zoom=Z&long=X&lat=Y shows the world Z times enlarged
// around (X, Y). The controls are links that change those parameters.
// Pins, labels and strokes keep their size on the screen at every zoom.

package console

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
)

// Zoom bounds: 1 is the whole world; maxZoom shows about 2.8° of
// longitude across the map.
const (
	maxZoom = 128.0
	// fitPadding is the share of the bounding box added on each side.
	fitPadding = 0.15
)

// mapView is the part of the world the map shows.
type mapView struct {
	Zoom      float64 // 1 = the whole world
	Long, Lat float64 // the center
	Fitted    bool    // the view is the devices' bounding box
}

// worldPixels places a position in the world's SVG coordinates.
func worldPixels(long, lat float64) (x, y float64) {
	return (long + 180) * mapScale, (90 - lat) * mapScale
}

// fitView returns the view that shows every pin, the whole world when
// there is none.
func fitView(pins []pin) mapView {
	if len(pins) == 0 {
		return mapView{Zoom: 1, Fitted: true}
	}
	minLong, maxLong := pins[0].Location.Long, pins[0].Location.Long
	minLat, maxLat := pins[0].Location.Lat, pins[0].Location.Lat
	for _, p := range pins[1:] {
		minLong, maxLong = math.Min(minLong, p.Location.Long), math.Max(maxLong, p.Location.Long)
		minLat, maxLat = math.Min(minLat, p.Location.Lat), math.Max(maxLat, p.Location.Lat)
	}
	spanLong := (maxLong - minLong) * (1 + 2*fitPadding)
	spanLat := (maxLat - minLat) * (1 + 2*fitPadding)
	zoom := maxZoom
	if spanLong > 0 {
		zoom = math.Min(zoom, 360/spanLong)
	}
	if spanLat > 0 {
		zoom = math.Min(zoom, 180/spanLat)
	}
	return mapView{Zoom: math.Max(1, zoom), Long: (minLong + maxLong) / 2, Lat: (minLat + maxLat) / 2, Fitted: true}.clamped()
}

// parseView reads ?zoom, ?long and ?lat; ok is false when the query asks
// for no view (the map then fits the devices).
func parseView(q url.Values) (mapView, bool) {
	zs := q.Get("zoom")
	if zs == "" {
		return mapView{}, false
	}
	z, err := strconv.ParseFloat(zs, 64)
	if err != nil || math.IsNaN(z) || math.IsInf(z, 0) {
		return mapView{}, false
	}
	long, _ := strconv.ParseFloat(q.Get("long"), 64)
	lat, _ := strconv.ParseFloat(q.Get("lat"), 64)
	if math.IsNaN(long) || math.IsInf(long, 0) || math.IsNaN(lat) || math.IsInf(lat, 0) {
		long, lat = 0, 0
	}
	return mapView{Zoom: z, Long: long, Lat: lat}.clamped(), true
}

// clamped keeps the zoom within bounds and the view inside the world.
func (v mapView) clamped() mapView {
	v.Zoom = math.Min(maxZoom, math.Max(1, v.Zoom))
	halfLong, halfLat := 180/v.Zoom, 90/v.Zoom
	v.Long = math.Min(180-halfLong, math.Max(-180+halfLong, v.Long))
	v.Lat = math.Min(90-halfLat, math.Max(-90+halfLat, v.Lat))
	return v
}

// box returns the view in the world's SVG coordinates: left, top, width,
// height.
func (v mapView) box() (x, y, w, h float64) {
	cx, cy := worldPixels(v.Long, v.Lat)
	w, h = mapW/v.Zoom, mapH/v.Zoom
	return cx - w/2, cy - h/2, w, h
}

// ViewBox is the SVG viewBox of the view.
func (v mapView) ViewBox() string {
	x, y, w, h := v.box()
	return pixels(x) + " " + pixels(y) + " " + pixels(w) + " " + pixels(h)
}

// ZoomText is the zoom for the page: "1×", "12.5×".
func (v mapView) ZoomText() string {
	return strconv.FormatFloat(math.Round(v.Zoom*10)/10, 'f', -1, 64) + "×"
}

// query is the address of a view.
func (v mapView) query() string {
	v = v.clamped()
	q := url.Values{}
	q.Set("zoom", strconv.FormatFloat(v.Zoom, 'g', 6, 64))
	q.Set("long", strconv.FormatFloat(v.Long, 'f', 4, 64))
	q.Set("lat", strconv.FormatFloat(v.Lat, 'f', 4, 64))
	return "?" + q.Encode()
}

// mapControl is one zoom or pan link.
type mapControl struct {
	ID, Label, Title, Href string
}

// controls are the links that zoom in and out, pan by half the view,
// and fit the devices again.
func (v mapView) controls() []mapControl {
	stepLong, stepLat := 180/v.Zoom, 90/v.Zoom
	with := func(f func(*mapView)) string {
		n := v
		f(&n)
		return n.query()
	}
	return []mapControl{
		{"map-zoom-in", "+", "Zoom in", with(func(n *mapView) { n.Zoom *= 2 })},
		{"map-zoom-out", "−", "Zoom out", with(func(n *mapView) { n.Zoom /= 2 })},
		{"map-west", "←", "Pan west", with(func(n *mapView) { n.Long -= stepLong })},
		{"map-east", "→", "Pan east", with(func(n *mapView) { n.Long += stepLong })},
		{"map-north", "↑", "Pan north", with(func(n *mapView) { n.Lat += stepLat })},
		{"map-south", "↓", "Pan south", with(func(n *mapView) { n.Lat -= stepLat })},
		{"map-fit", "Fit", "Fit the devices", "?"},
		{"map-world", "World", "The whole world", "?zoom=1"},
	}
}

// gridSteps are the spacings of the grid, in degrees, coarsest first.
var gridSteps = []float64{30, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05}

// grid returns the meridians and parallels inside the view, spaced so
// that a few of each show; the labels keep their size on the screen.
func (v mapView) grid() []gridLine {
	x, y, w, h := v.box()
	step := gridSteps[len(gridSteps)-1]
	for _, s := range gridSteps {
		if 360/v.Zoom/s >= 4 {
			step = s
			break
		}
	}
	inv := 1 / v.Zoom
	var out []gridLine
	west, east := -180+x/mapScale, -180+(x+w)/mapScale
	for i := math.Ceil(west / step); i*step <= east+1e-9; i++ {
		long := i * step
		lx, _ := worldPixels(long, 0)
		out = append(out, gridLine{X1: pixels(lx), Y1: pixels(y), X2: pixels(lx), Y2: pixels(y + h), Axis: long == 0,
			Label: hemisphere(long, 180, "E", "W"), LX: pixels(lx + 3*inv), LY: pixels(y + h - 4*inv)})
	}
	north, south := 90-y/mapScale, 90-(y+h)/mapScale
	for i := math.Ceil(south / step); i*step <= north+1e-9; i++ {
		lat := i * step
		_, ly := worldPixels(0, lat)
		out = append(out, gridLine{X1: pixels(x), Y1: pixels(ly), X2: pixels(x + w), Y2: pixels(ly), Axis: lat == 0,
			Label: hemisphere(lat, 90, "N", "S"), LX: pixels(x + 3*inv), LY: pixels(ly - 3*inv)})
	}
	return out
}

// hemisphere labels a grid line: 30°E, 60°S, 0°, 8.5°E; the frame
// (±edge) has no label.
func hemisphere(deg, edge float64, pos, neg string) string {
	deg = math.Round(deg*1000) / 1000
	switch {
	case deg == edge || deg == -edge:
		return ""
	case deg > 0:
		return fmt.Sprintf("%s°%s", degrees(deg), pos)
	case deg < 0:
		return fmt.Sprintf("%s°%s", degrees(-deg), neg)
	}
	return "0°"
}
