//go:build browser

// The console in a real browser: headless Chromium (Debian's package
// chromium, or the binary in $CHROMIUM) driven by chromedp through
// internal/browsertest. Run with
//
//	go test -race -tags browser ./platformtest/internal/console/
//
// Screenshots go to the test's temp dir (named in the log) and, when
// $CONSOLE_SCREENSHOTS names a directory, there too.

package console_test

import (
	"fmt"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/internal/browsertest"
	"github.com/flockgo/ironflock/platformtest"
)

// browser, newShots and run are the shared helpers of package
// browsertest.
var (
	browser  = browsertest.Start
	newShots = browsertest.NewShots
	run      = browsertest.Run
)

// TestBrowserPages loads every page, checks the fleet and a table's rows,
// and takes a screenshot of each.
func TestBrowserPages(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	base := w.p.HTTPURL()
	for _, pg := range []struct{ name, path, sel string }{
		{"overview", "/", "section.cards"},
		{"fleet", "/fleet", "#devices-1"},
		{"device", "/devices/1", "table.env"},
		{"app", "/apps/1", "main table"},
		{"sessions", "/sessions", "#live"},
		{"traffic", "/traffic", "#live-traffic"},
		{"tables", "/tables", "main table"},
		{"table", "/tables/" + w.realm + "/readings", "#chart"},
		{"files", "/files", "table.usage"},
		{"bucket", "/files/" + w.realm, "#objects"},
		{"agents", "/agents", "table.tools"},
		{"tool", "/agents/" + w.realm + "/1/assistant/read_temperature", "#tool-form"},
		{"faults", "/faults", "#fault-drop"},
	} {
		var title string
		run(t, ctx, "load "+pg.path, chromedp.Navigate(base+pg.path), chromedp.WaitVisible(pg.sel, chromedp.ByQuery),
			chromedp.Title(&title))
		if !strings.HasSuffix(title, "· flockd console") {
			t.Errorf("%s: title %q", pg.path, title)
		}
		sh.Take(ctx, pg.name)
	}

	var devices string
	run(t, ctx, "fleet", chromedp.Navigate(base+"/fleet"), chromedp.Text("#devices-1", &devices, chromedp.ByQuery))
	for _, s := range []string{"press-1", "press-2", w.in1.Device().Serial(), "line-1", w.realm} {
		if !strings.Contains(devices, s) {
			t.Errorf("the fleet's devices lack %q:\n%s", s, devices)
		}
	}
	var rows int
	var first string
	run(t, ctx, "table", chromedp.Navigate(base+"/tables/"+w.realm+"/readings"),
		chromedp.WaitVisible("#rows", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#rows tbody tr").length`, &rows),
		chromedp.Text("#rows tbody tr:first-child", &first, chromedp.ByQuery))
	if rows != 6 {
		t.Errorf("%d rows, want 6", rows)
	}
	for _, s := range []string{"2026-01-01 10:05:00.000Z", "s3", "25", "(secret)", w.in2.Device().Serial()} {
		if !strings.Contains(first, s) {
			t.Errorf("the newest row lacks %q: %s", s, first)
		}
	}
	var latest int
	run(t, ctx, "latest view", chromedp.Click(`a[href="?latest=1"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`//b[text()="Latest row per entity"]`, chromedp.BySearch),
		chromedp.Evaluate(`document.querySelectorAll("#rows tbody tr").length`, &latest))
	if latest != 3 {
		t.Errorf("%d latest rows, want one per sensor: 3", latest)
	}
}

// TestBrowserLiveTraffic watches a publication appear live, and the pause
// button hold the next one.
func TestBrowserLiveTraffic(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	c := clienttest.Start(t, w.in1)
	run(t, ctx, "open the traffic", chromedp.Navigate(w.p.HTTPURL()+"/traffic"),
		chromedp.WaitVisible(`#live-traffic[data-state="open"]`, chromedp.ByQuery))
	pctx := testCtx(t)
	if err := c.Publish(pctx, "com.example.hello", client.Kwargs{"greeting": "hello from press-1"}); err != nil {
		t.Fatal(err)
	}
	sel := `#live-rows tr[data-kind="publish"][data-uri="com.example.hello"]`
	var payload string
	run(t, ctx, "see the publication", chromedp.WaitVisible(sel, chromedp.ByQuery),
		chromedp.Text(sel+" pre", &payload, chromedp.ByQuery))
	if !strings.Contains(payload, `"greeting": "hello from press-1"`) {
		t.Errorf("payload %s", payload)
	}
	sh.Take(ctx, "traffic-live")

	run(t, ctx, "pause", chromedp.Click("#pause", chromedp.ByQuery),
		chromedp.WaitVisible(`//button[@id="pause" and text()="Resume"]`, chromedp.BySearch))
	if err := c.Publish(pctx, "com.example.later", "held"); err != nil {
		t.Fatal(err)
	}
	later := `#live-rows tr[data-uri="com.example.later"]`
	var held bool
	run(t, ctx, "held while paused",
		chromedp.Poll(`document.getElementById("live-note").textContent.includes("held while paused")`, &held,
			chromedp.WithPollingInterval(50*time.Millisecond)))
	var n int
	run(t, ctx, "count", chromedp.Evaluate(fmt.Sprintf(`document.querySelectorAll(%q).length`, later), &n))
	if n != 0 {
		t.Error("a publication showed while paused")
	}
	run(t, ctx, "resume", chromedp.Click("#pause", chromedp.ByQuery), chromedp.WaitVisible(later, chromedp.ByQuery))
}

// TestBrowserLocation: the fleet page, open in the browser, shows a
// device's position as numbers and on its map once the device calls
// SetDeviceLocation, without being reloaded.
func TestBrowserLocation(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	ctx := browser(t)
	sh := newShots(t)
	c := clienttest.Start(t, w.in1)
	cell := `#device-1 td.location`
	var before string
	run(t, ctx, "open the fleet", chromedp.Navigate(w.p.HTTPURL()+"/fleet"), chromedp.WaitVisible("#map", chromedp.ByQuery),
		chromedp.Text(cell, &before, chromedp.ByQuery))
	if strings.TrimSpace(before) != "—" {
		t.Fatalf("before any update the location cell says %q", before)
	}
	// The page stays open: from here it only refreshes itself.
	if err := c.SetDeviceLocation(testCtx(t), 8.68, 50.11); err != nil {
		t.Fatal(err)
	}
	var shown bool
	run(t, ctx, "see the position",
		chromedp.Poll(fmt.Sprintf(`document.querySelector(%q).textContent.includes("long 8.68 · lat 50.11")`, cell), &shown,
			chromedp.WithPollingInterval(100*time.Millisecond)))
	var cx, cy, title string
	var pins int
	run(t, ctx, "the pin",
		chromedp.Evaluate(`document.querySelectorAll("#map g.pin").length`, &pins),
		chromedp.Evaluate(`document.querySelector("#map-device-1 circle").getAttribute("cx")`, &cx),
		chromedp.Evaluate(`document.querySelector("#map-device-1 circle").getAttribute("cy")`, &cy),
		chromedp.Evaluate(`document.querySelector("#map-device-1 title").textContent`, &title))
	if pins != 1 || cx != "377.36" || cy != "79.78" || title != "press-1: long 8.68 · lat 50.11" {
		t.Errorf("%d pin(s); press-1 at (%s, %s) titled %q, want one at (377.36, 79.78)", pins, cx, cy, title)
	}
	sh.Take(ctx, "fleet-location")
}

// TestBrowserFault clicks "Drop connections" and sees the client
// reconnect with a new session.
func TestBrowserFault(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	ctx := browser(t)
	sh := newShots(t)
	_, states := states(t, w.in1)
	awaitStates(t, states, client.StateConnected)
	before := w.p.Sessions()[0].ID
	base := w.p.HTTPURL()
	run(t, ctx, "sessions before", chromedp.Navigate(base+"/sessions"),
		chromedp.WaitVisible(fmt.Sprintf(`tr[data-session="%d"]`, before), chromedp.ByQuery))
	var done string
	run(t, ctx, "click drop", chromedp.Navigate(base+"/faults"), chromedp.WaitVisible("#fault-drop", chromedp.ByQuery),
		chromedp.Click("#fault-drop button", chromedp.ByQuery), chromedp.WaitVisible("#done", chromedp.ByQuery),
		chromedp.Text("#done", &done, chromedp.ByQuery))
	if !strings.Contains(done, "Drop connections") {
		t.Errorf("the answer says %q", done)
	}
	sh.Take(ctx, "fault-done")
	awaitStates(t, states, client.StateReconnecting, client.StateConnected)
	after := w.p.Sessions()[0].ID
	if after == before {
		t.Fatalf("still session %d", before)
	}
	// The sessions page refreshes itself: the new session shows, the old
	// one goes.
	var gone bool
	run(t, ctx, "sessions after", chromedp.Navigate(base+"/sessions"),
		chromedp.WaitVisible(fmt.Sprintf(`tr[data-session="%d"]`, after), chromedp.ByQuery),
		chromedp.Evaluate(fmt.Sprintf(`document.querySelector('tr[data-session="%d"]') === null`, before), &gone))
	if !gone {
		t.Errorf("the dropped session %d still shows", before)
	}
	sh.Take(ctx, "sessions-after-drop")
	var log string
	run(t, ctx, "action log", chromedp.Navigate(base+"/faults"), chromedp.Text("#actions", &log, chromedp.ByQuery))
	if !strings.Contains(log, "dropped every connection") {
		t.Errorf("the action log says %q", log)
	}
}

// TestBrowserSQL types a query into the SQL page, runs it and reads the
// answer's table; a write shows PostgreSQL's refusal. It needs the
// PostgreSQL database of $IRONFLOCK_TEST_POSTGRES (not run without).
func TestBrowserSQL(t *testing.T) {
	dbURL := storetest.PostgresURL(t)
	if dbURL == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	w := sqlWorld(t, dbURL)
	ctx := browser(t)
	sh := newShots(t)
	var cells []string
	run(t, ctx, "run a query", chromedp.Navigate(w.p.HTTPURL()+"/sql"), chromedp.WaitVisible("#sql-query", chromedp.ByQuery),
		chromedp.SetValue("#sql-query", "SELECT sensor, celsius FROM readings WHERE celsius > 20 ORDER BY sensor", chromedp.ByQuery),
		chromedp.Click("#sql-run", chromedp.ByQuery), chromedp.WaitVisible("#sql-result", chromedp.ByQuery),
		chromedp.Evaluate(`Array.from(document.querySelectorAll("#sql-result tbody td")).map(td => td.textContent)`, &cells))
	if want := []string{"s2", "21", "s3", "22"}; strings.Join(cells, " ") != strings.Join(want, " ") {
		t.Errorf("answer cells %v, want %v", cells, want)
	}
	sh.Take(ctx, "sql")
	var refusal string
	run(t, ctx, "a write", chromedp.SetValue("#sql-query", "DELETE FROM readings", chromedp.ByQuery),
		chromedp.Click("#sql-run", chromedp.ByQuery), chromedp.WaitVisible("#sql-error", chromedp.ByQuery),
		chromedp.Text("#sql-error", &refusal, chromedp.ByQuery))
	if !strings.Contains(refusal, "read-only transaction") {
		t.Errorf("the write shows %q", refusal)
	}
	sh.Take(ctx, "sql-refused")
}
