//go:build browser

// The fleet map in a real browser: it fits the devices it shows, and
// its links zoom and pan it.

package console_test

import (
	"context"
	"math"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// pinBox is where a pin's circle stands on the screen.
type pinBox struct{ X, Y, W float64 }

// pinBoxes reads the screen boxes of press-1's and press-2's circles and
// of the map.
func pinBoxes(t *testing.T, ctx context.Context, step string) (a, b, m pinBox) {
	t.Helper()
	const js = `(() => { const r = s => { const b = document.querySelector(s).getBoundingClientRect();
		return {X: b.x + b.width / 2, Y: b.y + b.height / 2, W: b.width}; };
		return [r("#map-device-1 circle"), r("#map-device-2 circle"), r("#map")]; })()`
	var boxes []pinBox
	run(t, ctx, step, chromedp.Evaluate(js, &boxes))
	if len(boxes) != 3 {
		t.Fatalf("%s: boxes %v", step, boxes)
	}
	return boxes[0], boxes[1], boxes[2]
}

func distance(a, b pinBox) float64 { return math.Hypot(a.X-b.X, a.Y-b.Y) }

// TestBrowserMapFit: two devices about 420 km apart (Frankfurt, Berlin)
// stand well apart on the fitted map, inside it and at their true
// bearing; zooming out halves their distance on the screen, zooming in
// doubles it, and the pins keep their size.
func TestBrowserMapFit(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	c1, c2 := clienttest.Start(t, w.in1), clienttest.Start(t, w.in2)
	if err := c1.SetDeviceLocation(testCtx(t), 8.68, 50.11); err != nil {
		t.Fatal(err)
	}
	if err := c2.SetDeviceLocation(testCtx(t), 13.40, 52.52); err != nil {
		t.Fatal(err)
	}
	run(t, ctx, "open the fleet", chromedp.Navigate(w.p.HTTPURL()+"/fleet"), chromedp.WaitVisible("#map-device-2", chromedp.ByQuery))
	a, b, m := pinBoxes(t, ctx, "fitted")
	sh.Take(ctx, "map-fitted")
	fitted := distance(a, b)
	if fitted < 0.4*m.W {
		t.Errorf("fitted: the pins are %.0f px apart on a map %.0f px wide, want at least 40%% of it", fitted, m.W)
	}
	if a.W < 6 || a.W > 16 {
		t.Errorf("fitted: a pin is %.1f px wide, want about 11", a.W)
	}
	for _, p := range []pinBox{a, b} {
		if p.X < m.X-m.W/2 || p.X > m.X+m.W/2 || p.Y < m.Y-m.W/4 || p.Y > m.Y+m.W/4 {
			t.Errorf("fitted: a pin at (%.0f, %.0f) is outside the map centred at (%.0f, %.0f)", p.X, p.Y, m.X, m.Y)
		}
	}
	if b.X <= a.X || b.Y >= a.Y {
		t.Errorf("Berlin (%.0f, %.0f) is not east and north of Frankfurt (%.0f, %.0f)", b.X, b.Y, a.X, a.Y)
	}

	run(t, ctx, "zoom out", chromedp.Click("#map-zoom-out", chromedp.ByQuery), chromedp.WaitVisible("#map-device-2", chromedp.ByQuery))
	a, b, _ = pinBoxes(t, ctx, "zoomed out")
	if r := distance(a, b) / fitted; math.Abs(r-0.5) > 0.02 {
		t.Errorf("zoomed out: the pins are %.0f px apart, %.2f times the fitted distance, want 0.5", distance(a, b), r)
	}
	var zoom string
	run(t, ctx, "zoom in twice", chromedp.Click("#map-zoom-in", chromedp.ByQuery), chromedp.WaitVisible("#map-zoom-in", chromedp.ByQuery),
		chromedp.Click("#map-zoom-in", chromedp.ByQuery), chromedp.WaitVisible("#map-device-2", chromedp.ByQuery),
		chromedp.Text("#map-zoom", &zoom, chromedp.ByQuery))
	a, b, _ = pinBoxes(t, ctx, "zoomed in")
	sh.Take(ctx, "map-zoomed-in")
	if r := distance(a, b) / fitted; math.Abs(r-2) > 0.05 {
		t.Errorf("zoomed in: the pins are %.0f px apart, %.2f times the fitted distance, want 2 (%s)", distance(a, b), r, zoom)
	}
	if a.W < 6 || a.W > 16 {
		t.Errorf("zoomed in: a pin is %.1f px wide, want the same size as fitted", a.W)
	}
	before := a.X
	run(t, ctx, "pan east", chromedp.Click("#map-east", chromedp.ByQuery), chromedp.WaitVisible("#map-device-1", chromedp.ByQuery))
	a, _, _ = pinBoxes(t, ctx, "panned east")
	if a.X >= before {
		t.Errorf("panning east did not move Frankfurt left: %.0f → %.0f", before, a.X)
	}
	var world bool
	run(t, ctx, "the whole world", chromedp.Click("#map-world", chromedp.ByQuery), chromedp.WaitVisible("#map-device-1", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#map").getAttribute("viewBox") === "0.00 0.00 720.00 360.00"`, &world))
	if !world {
		t.Error("World does not show the whole world")
	}
}
