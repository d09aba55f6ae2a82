//go:build browser

// The console's views in a real browser: the chart (ticks, grid, ranges,
// rounded values, redrawn while open), the compact traffic, fault buttons
// that can act, app tables linked to their pages, the environment
// download and the values writes lost.

package console_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// poll waits in the page until expr is true (within the browser test's
// bound).
func poll(expr string) chromedp.Action {
	var ok bool
	return chromedp.Poll(expr, &ok, chromedp.WithPollingInterval(50*time.Millisecond))
}

// TestBrowserChart: the chart has labelled ticks on both axes, a grid and
// axis titles, offers ranges from 5 minutes, shows values rounded, and
// redraws itself and the rows while the page is open.
func TestBrowserChart(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	page := w.p.HTTPURL() + "/tables/" + w.realm + "/readings?column=celsius&method=MAX&buckets=6"
	var yTicks, xTicks, gridLines int
	var titles []string
	var ranges string
	run(t, ctx, "open the chart", chromedp.Navigate(page), chromedp.WaitVisible("#chart", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#chart .y-ticks text.tick").length`, &yTicks),
		chromedp.Evaluate(`document.querySelectorAll("#chart .x-ticks text.tick").length`, &xTicks),
		chromedp.Evaluate(`document.querySelectorAll("#chart .grid line").length`, &gridLines),
		chromedp.Evaluate(`[...document.querySelectorAll("#chart .axis-title")].map(e => e.textContent)`, &titles),
		chromedp.Evaluate(`[...document.querySelectorAll("select[name=range] option")].map(o => o.textContent).join(",")`, &ranges))
	if yTicks < 3 || xTicks < 3 || gridLines != yTicks+xTicks {
		t.Errorf("%d value ticks, %d time ticks, %d grid lines; want at least 3 of each and one line per tick", yTicks, xTicks, gridLines)
	}
	if len(titles) != 2 || titles[0] != "MAX of celsius (Celsius)" || !strings.HasPrefix(titles[1], "time (UTC), 2026-01-01 10:00:00") {
		t.Errorf("axis titles %q", titles)
	}
	if !strings.HasPrefix(ranges, "all,5m,15m,1h") {
		t.Errorf("ranges %s, want 5m and 15m before 1h", ranges)
	}
	var labels []string
	run(t, ctx, "time ticks", chromedp.Evaluate(`[...document.querySelectorAll("#chart .x-ticks text.tick")].map(e => e.textContent)`, &labels))
	if len(labels) > 0 && labels[0] != "10:00" {
		t.Errorf("time ticks %q, want round times from 10:00", labels)
	}
	sh.Take(ctx, "chart")

	// A new row with a long fraction: the open page redraws and rounds it.
	if err := w.p.InsertRows(w.in1, "readings", map[string]any{"tsp": t0.Add(6 * time.Minute), "sensor": "s1",
		"celsius": 23.613420000507528, "pin": "1"}); err != nil {
		t.Fatal(err)
	}
	var label string
	run(t, ctx, "redrawn while open",
		poll(`document.querySelectorAll("#rows tbody tr").length === 7`),
		poll(`[...document.querySelectorAll("#chart circle title")].some(e => e.textContent.endsWith(": 23.61"))`),
		chromedp.Evaluate(`[...document.querySelectorAll("#chart circle title")].map(e => e.textContent).join("\n")`, &label))
	if strings.Contains(label, "23.6134") {
		t.Errorf("unrounded value on the chart:\n%s", label)
	}
	var title string
	run(t, ctx, "5 minutes", chromedp.Evaluate(`document.querySelector("#chart").remove()`, nil),
		chromedp.SetValue("select[name=range]", "5m", chromedp.ByQuery),
		chromedp.Click("form.filter button", chromedp.ByQuery), chromedp.WaitVisible("#chart", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#chart .axis-title")[1].textContent`, &title))
	if !strings.Contains(title, "10:01:00 to 10:06:00") {
		t.Errorf("the last 5 minutes: %q", title)
	}
	sh.Take(ctx, "chart-5m")
}

// TestBrowserTrafficCompact: the compact view shows one line per message,
// live and recorded, with the whole payload on hover.
func TestBrowserTrafficCompact(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	c := clienttest.Start(t, w.in1)
	run(t, ctx, "open the traffic", chromedp.Navigate(w.p.HTTPURL()+"/traffic"),
		chromedp.WaitVisible(`#live-traffic[data-state="open"]`, chromedp.ByQuery))
	run(t, ctx, "the compact view", chromedp.Click("#view-toggle", chromedp.ByQuery),
		chromedp.WaitVisible(`#live-traffic[data-compact="1"]`, chromedp.ByQuery))
	run(t, ctx, "its stream", chromedp.WaitVisible(`#live-traffic[data-state="open"]`, chromedp.ByQuery))
	pctx := testCtx(t)
	for i := range 3 {
		if err := c.Publish(pctx, "com.example.compact", client.Kwargs{"n": i, "nested": map[string]any{"a": []int{1, 2, 3}}}); err != nil {
			t.Fatal(err)
		}
	}
	sel := `#live-rows tr[data-uri="com.example.compact"]`
	var heights []float64
	var text, hover string
	run(t, ctx, "three live lines", poll(fmt.Sprintf(`document.querySelectorAll(%q).length === 3`, sel)),
		chromedp.Evaluate(fmt.Sprintf(`[...document.querySelectorAll(%q)].map(r => r.getBoundingClientRect().height)`, sel), &heights),
		chromedp.Text(sel+" td.payload code", &text, chromedp.ByQuery),
		chromedp.AttributeValue(sel+" td.payload code", "title", &hover, nil, chromedp.ByQuery))
	for _, h := range heights {
		if h > 32 {
			t.Errorf("a compact row is %.0f px high, want one line", h)
		}
	}
	if !strings.Contains(text, `"nested":{"a":[1,2,3]}`) || strings.Contains(text, "\n") || !strings.Contains(hover, "\n") {
		t.Errorf("compact payload %q, hover %q", text, hover)
	}
	sh.Take(ctx, "traffic-compact")
	var recorded []float64
	run(t, ctx, "recorded lines", chromedp.Reload(), chromedp.WaitVisible("#recorded", chromedp.ByQuery),
		chromedp.Evaluate(`[...document.querySelectorAll("#recorded tbody tr")].map(r => r.getBoundingClientRect().height)`, &recorded))
	if len(recorded) < 3 {
		t.Fatalf("%d recorded rows", len(recorded))
	}
	for _, h := range recorded {
		if h > 32 {
			t.Errorf("a recorded row is %.0f px high in the compact view", h)
		}
	}
	var full bool
	run(t, ctx, "back to full", chromedp.Click("#view-toggle", chromedp.ByQuery), chromedp.WaitVisible("#recorded pre", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#live-traffic").dataset.compact === undefined`, &full))
	if !full {
		t.Error("the full view is still compact")
	}
}

// TestBrowserFaultButtons: release is offered once a realm is withheld,
// and only for it.
func TestBrowserFaultButtons(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	ctx := browser(t)
	sh := newShots(t)
	var disabled bool
	var reason string
	run(t, ctx, "nothing withheld", chromedp.Navigate(w.p.HTTPURL()+"/faults"), chromedp.WaitVisible("#fault-release", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#fault-release button").disabled`, &disabled),
		chromedp.Text("#fault-release .cannot", &reason, chromedp.ByQuery))
	if !disabled || !strings.Contains(reason, "No realm is withheld") {
		t.Errorf("release: disabled %v, reason %q", disabled, reason)
	}
	sh.Take(ctx, "faults-idle")
	var options []string
	run(t, ctx, "withhold", chromedp.Click("#fault-withhold button", chromedp.ByQuery), chromedp.WaitVisible("#done", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#fault-release button").disabled`, &disabled),
		chromedp.Evaluate(`[...document.querySelectorAll("#fault-release option")].map(o => o.textContent)`, &options))
	if disabled || len(options) != 1 || options[0] != w.realm {
		t.Errorf("release after withholding: disabled %v, realms %q", disabled, options)
	}
	sh.Take(ctx, "faults-withheld")
	var done string
	run(t, ctx, "release", chromedp.Evaluate(`document.querySelector("#done").remove()`, nil),
		chromedp.Click("#fault-release button", chromedp.ByQuery), chromedp.WaitVisible("#done", chromedp.ByQuery),
		chromedp.Text("#done", &done, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#fault-release button").disabled`, &disabled))
	if !strings.Contains(done, "release realm") {
		t.Errorf("the answer says %q", done)
	}
	if !disabled {
		t.Error("release is offered again after releasing")
	}
}

// TestBrowserLinksAndDownloads: the app page links its tables to their
// pages, the device page downloads the environment, and a table that lost
// values says so.
func TestBrowserLinksAndDownloads(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	base := w.p.HTTPURL()
	var heading string
	run(t, ctx, "app to table", chromedp.Navigate(base+"/apps/1"), chromedp.WaitVisible("#app-tables", chromedp.ByQuery),
		chromedp.Click(`#app-tables a[href="/tables/`+w.realm+`/readings"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#rows", chromedp.ByQuery), chromedp.Text("h1", &heading, chromedp.ByQuery))
	if !strings.HasPrefix(heading, "readings") {
		t.Errorf("the link led to %q", heading)
	}

	var exports string
	run(t, ctx, "download the environment", chromedp.Navigate(base+"/devices/1"), chromedp.WaitVisible("p.download", chromedp.ByQuery),
		chromedp.Evaluate(`fetch(document.querySelector('p.download a[href*="format=shell"]').href).then(r => r.text())`, &exports,
			func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }))
	if !strings.Contains(exports, "export DEVICE_NAME='press-1'") || !strings.Contains(exports, "export APP_AUTH_SECRET='") {
		t.Errorf("the shell download:\n%s", exports)
	}
	sh.Take(ctx, "device-downloads")

	c := clienttest.Start(t, w.in1)
	if _, err := c.AppendToTable(testCtx(t), "readings", map[string]any{"tsp": t0.Add(time.Hour), "sensor": "s1", "celcius": 20}); err != nil {
		t.Fatal(err)
	}
	var lost string
	run(t, ctx, "lost values", chromedp.Navigate(base+"/tables/"+w.realm+"/readings"), chromedp.WaitVisible("#dropped", chromedp.ByQuery),
		chromedp.Text("#dropped", &lost, chromedp.ByQuery))
	if !strings.Contains(lost, "key celcius, which no column reads: dropped from 1 row(s)") {
		t.Errorf("the table page says %q", lost)
	}
	sh.Take(ctx, "table-dropped")
	var nodes []*cdp.Node
	run(t, ctx, "marked in the list", chromedp.Navigate(base+"/tables"), chromedp.Nodes("//span[contains(., 'writes lost data (1 rows)')]", &nodes, chromedp.BySearch))
}
