//go:build browser

// The row editor in a real browser: a row added from the table page, an
// entity changed and marked deleted, each read back through the SDK.

package console_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestBrowserRowEdit: on a writable console, a user adds a row from the
// table page, then changes its entity (a field left empty keeps the
// entity's value) and marks it deleted; the SDK reads each append, and a
// latest read that hides deleted entities no longer shows it.
func TestBrowserRowEdit(t *testing.T) {
	w := newMachinesWorld(t, platformtest.Console{Write: true})
	ctx := browser(t)
	sh := newShots(t)
	c := clienttest.Start(t, w.in1)
	pctx := testCtx(t)
	table := w.p.HTTPURL() + "/tables/" + w.realm + "/machines"
	run(t, ctx, "add a row", chromedp.Navigate(table), chromedp.WaitVisible("#add-row", chromedp.ByQuery),
		chromedp.Click("#add-row", chromedp.ByQuery), chromedp.WaitVisible("#row-form", chromedp.ByQuery),
		chromedp.SetValue(`select[name="device"]`, "2", chromedp.ByQuery),
		chromedp.SetValue(`input[name="c.machine"]`, "m1", chromedp.ByQuery),
		chromedp.SetValue(`input[name="c.state"]`, "running", chromedp.ByQuery),
		chromedp.SetValue(`input[name="c.temp"]`, "21.5", chromedp.ByQuery),
		chromedp.SetValue(`input[name="c.code"]`, "s3cret", chromedp.ByQuery))
	sh.Take(ctx, "row-add")
	run(t, ctx, "append", chromedp.Click("#append", chromedp.ByQuery), chromedp.WaitVisible("#rows", chromedp.ByQuery))
	rows, err := c.GetHistory(pctx, "machines", &client.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["machine"] != "m1" || rows[0]["state"] != "running" || rows[0]["temp"] != 21.5 ||
		rows[0]["device_key"] != int64(2) || rows[0]["deleted"] != nil {
		t.Fatalf("after adding: rows %v", rows)
	}

	var state, machineReadOnly string
	run(t, ctx, "open the entity", chromedp.Navigate(table+"?latest=1"), chromedp.WaitVisible("a.edit-entity", chromedp.ByQuery),
		chromedp.Click("a.edit-entity", chromedp.ByQuery), chromedp.WaitVisible("#mark-deleted", chromedp.ByQuery),
		chromedp.Value(`input[name="c.state"]`, &state, chromedp.ByQuery),
		chromedp.Evaluate(`String(document.querySelector('input[name="c.machine"]').readOnly)`, &machineReadOnly))
	if state != "running" || machineReadOnly != "true" {
		t.Errorf("the entity's form: state %q, machine read-only %s", state, machineReadOnly)
	}
	run(t, ctx, "change it", chromedp.SetValue(`input[name="c.state"]`, "stopped", chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('input[name="c.temp"]').value = ""`, nil))
	sh.Take(ctx, "row-change")
	run(t, ctx, "append the change", chromedp.Click("#append", chromedp.ByQuery), chromedp.WaitVisible("a.edit-entity", chromedp.ByQuery))
	latest, err := c.GetHistory(pctx, "machines", &client.Query{Limit: 10, FilterAnd: []client.Filter{client.Latest()}})
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.GetHistory(pctx, "machines", &client.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 2 || len(latest) != 1 || latest[0]["state"] != "stopped" || latest[0]["temp"] != 21.5 {
		t.Fatalf("after the change: %d rows, latest %v (want state stopped, temp kept 21.5)", len(all), latest)
	}
	if stored := w.p.DecryptedTableRows(w.realm, "machines"); len(stored) != 2 || stored[1]["code"] != "s3cret" {
		t.Errorf("the secret was not kept through the change: %v", stored)
	}

	run(t, ctx, "mark deleted", chromedp.Click("a.edit-entity", chromedp.ByQuery), chromedp.WaitVisible("#mark-deleted", chromedp.ByQuery),
		chromedp.Click("#mark-deleted", chromedp.ByQuery), chromedp.WaitVisible("a.edit-entity", chromedp.ByQuery))
	sh.Take(ctx, "row-deleted")
	latest, err = c.GetHistory(pctx, "machines", &client.Query{Limit: 10, FilterAnd: []client.Filter{client.Latest()}})
	if err != nil {
		t.Fatal(err)
	}
	if len(latest) != 1 || latest[0]["deleted"] != true || latest[0]["state"] != "stopped" {
		t.Fatalf("after marking deleted: latest %v", latest)
	}
	live, err := c.GetHistory(pctx, "machines", &client.Query{Limit: 10,
		FilterAnd: []client.Filter{client.Latest(), client.Or(client.IsNull("deleted"), client.Where("deleted", "=", false))}})
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 0 {
		t.Errorf("a deleted entity still reads as live: %v", live)
	}
	var log string
	run(t, ctx, "action log", chromedp.Navigate(w.p.HTTPURL()+"/faults"), chromedp.Text("#actions", &log, chromedp.ByQuery))
	if strings.Count(log, "append to machines of "+w.realm+" as mill-2") != 3 || strings.Contains(log, "s3cret") {
		t.Errorf("the action log:\n%s", log)
	}
}
