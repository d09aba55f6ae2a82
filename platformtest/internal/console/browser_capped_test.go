//go:build browser

// The capped lists in a real browser: a group's members paged from the
// fleet page's link, a row written as a device whose key is typed, and a
// tool opened on a device the Agents page does not list.

package console_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestBrowserCappedLists: with a group and an app on 300 devices, a user
// follows the group's link to its members and searches among them, adds
// a row as device 1150 by typing its key (an unknown key is refused), and
// opens the tool on device 1150, which serves it, from the Agents page's
// form.
func TestBrowserCappedLists(t *testing.T) {
	w, realm := newCappedWorld(t)
	ctx := browser(t)
	sh := newShots(t)
	base := w.p.HTTPURL()

	var filter string
	var rows int
	run(t, ctx, "the group's members", chromedp.Navigate(base+"/fleet"), chromedp.WaitVisible("#groups-7", chromedp.ByQuery),
		chromedp.Click("#groups-7 a.all-devices", chromedp.ByQuery), chromedp.WaitVisible("#group-filter", chromedp.ByQuery),
		chromedp.SetValue(`form.pager input[name="q"]`, "node-29", chromedp.ByQuery),
		chromedp.Submit(`form.pager input[name="q"]`, chromedp.ByQuery),
		chromedp.WaitVisible(`#devices-7 tr#device-1290`, chromedp.ByQuery),
		chromedp.Text("#group-filter", &filter, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll("#devices-7 tbody tr").length`, &rows))
	sh.Take(ctx, "group-members")
	if rows != 10 || !strings.Contains(filter, "group all") {
		t.Errorf("the search among the group's members lists %d devices under %q, want 10 of group all", rows, filter)
	}

	var selects int
	var refused string
	run(t, ctx, "a row as a typed key", chromedp.Navigate(base+"/tables/"+realm+"/readings"), chromedp.WaitVisible("#add-row", chromedp.ByQuery),
		chromedp.Click("#add-row", chromedp.ByQuery), chromedp.WaitVisible("#device-key", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelectorAll('select[name="device"]').length`, &selects),
		chromedp.SetValue("#device-key", "99999", chromedp.ByQuery),
		chromedp.SetValue(`input[name="c.sensor"]`, "s1", chromedp.ByQuery),
		chromedp.Click("#append", chromedp.ByQuery), chromedp.WaitVisible("#row-error", chromedp.ByQuery),
		chromedp.Text("#row-error", &refused, chromedp.ByQuery))
	if selects != 0 || !strings.Contains(refused, "field device: no device with key 99999 runs the app of realm "+realm) {
		t.Errorf("%d device lists; the unknown key refused with %q", selects, refused)
	}
	if n := len(w.p.TableRows(realm, "readings")); n != 0 {
		t.Fatalf("%d rows stored after the refusal", n)
	}
	run(t, ctx, "append", chromedp.SetValue("#device-key", "1150", chromedp.ByQuery),
		chromedp.SetValue(`input[name="c.celsius"]`, "21.5", chromedp.ByQuery))
	sh.Take(ctx, "row-device-key")
	run(t, ctx, "append as 1150", chromedp.Click("#append", chromedp.ByQuery), chromedp.WaitVisible("#rows", chromedp.ByQuery))
	if stored := w.p.TableRows(realm, "readings"); len(stored) != 1 || stored[0]["device_key"] != int64(1150) || stored[0]["celsius"] != 21.5 {
		t.Errorf("rows %v, want one by device 1150", stored)
	}

	c := clienttest.Start(t, w.p.InstallationOf(1150, 3, platformtest.Dev))
	if _, err := c.RegisterDeviceFunction(testCtx(t), "read_temperature", func(context.Context, *client.Invocation) (any, error) {
		return map[string]any{"celsius": 20.0}, nil
	}); err != nil {
		t.Fatal(err)
	}
	tool := "#tool-assistant-read_temperature"
	var disabled bool
	var title string
	run(t, ctx, "the tool on key 1150", chromedp.Navigate(base+"/agents"), chromedp.WaitVisible(tool+" form.pick", chromedp.ByQuery),
		chromedp.SetValue(tool+` form.pick input[name="key"]`, "1150", chromedp.ByQuery))
	sh.Take(ctx, "agents-capped")
	run(t, ctx, "open it", chromedp.Click(tool+" form.pick button", chromedp.ByQuery), chromedp.WaitVisible("#tool-form", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector("#call").disabled`, &disabled),
		chromedp.Text("#call", &title, chromedp.ByQuery))
	if disabled || title != "Call read_temperature on node-150" {
		t.Errorf("the tool's form on key 1150: %q, disabled %v", title, disabled)
	}
}
