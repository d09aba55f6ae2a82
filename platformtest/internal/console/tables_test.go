package console_test

import (
	"fmt"
	"html"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// row is a table row as the browser shows it: tsp, sensor, celsius, pin,
// device_key, authid.
func row(w *world, minute int, sensor, celsius string) []string {
	in := w.in1
	if minute%2 == 1 {
		in = w.in2
	}
	return []string{fmt.Sprintf("2026-01-01 10:%02d:00.000Z", minute), sensor, celsius, "•••• (secret)",
		strconv.Itoa(in.Device().Key()), in.Device().Serial()}
}

// TestTableRows checks the rows newest first, paging and masked secrets.
func TestTableRows(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	base := "/tables/" + w.realm + "/readings"
	_, body := w.get(t, base)
	want := [][]string{
		row(w, 5, "s3", "25"), row(w, 4, "s2", "24"), row(w, 3, "s1", "23"),
		row(w, 2, "s3", "22"), row(w, 1, "s2", "21"), row(w, 0, "s1", "20"),
	}
	if diff := cmp.Diff(want, tableCells(t, body, "rows")); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	if strings.Contains(body, "1234") {
		t.Error("a secret value shows")
	}
	_, body = w.get(t, base+"?limit=2&offset=2")
	if diff := cmp.Diff(want[2:4], tableCells(t, body, "rows")); diff != "" {
		t.Errorf("page 2 (-want +got):\n%s", diff)
	}
	for _, link := range []string{`href="?limit=2&amp;offset=0" rel="prev"`, `href="?limit=2&amp;offset=4" rel="next"`} {
		if !strings.Contains(body, link) {
			t.Errorf("page 2 lacks the link %s", link)
		}
	}
	_, body = w.get(t, base+"?latest=1")
	if diff := cmp.Diff(want[:3], tableCells(t, body, "rows")); diff != "" {
		t.Errorf("latest per sensor (-want +got):\n%s", diff)
	}
}

// TestChart checks the chart drawn from the series query.
func TestChart(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	base := "/tables/" + w.realm + "/readings"
	_, body := w.get(t, base+"?column=celsius&method=MAX&buckets=3")
	body = html.UnescapeString(body)
	for _, s := range []string{`<svg class="chart"`, "<polyline", "3 buckets with values", `"method":"MAX","ref":"celsius"`,
		"2026-01-01 10:00:00.000Z: 21</title>", ": 25</title>", ">25<", ">21<"} {
		if !strings.Contains(body, s) {
			t.Errorf("chart lacks %q", s)
		}
	}
	if n := strings.Count(body, "<circle"); n != 3 {
		t.Errorf("%d points, want 3", n)
	}
	_, body = w.get(t, base+"?column=celsius&method=COUNT&buckets=1&range=1h")
	if !strings.Contains(body, ": 6</title>") {
		t.Errorf("COUNT over the last hour is not 6:\n%s", body)
	}
	_, body = w.get(t, "/tables/"+w.realm+"/error-logs")
	if strings.Contains(body, "<svg") {
		t.Error("a chart for a table without numeric columns")
	}
}

// TestTableDrops: what writes lost shows on the table page (per key, and
// rows without tsp) and as a mark in the table list.
func TestTableDrops(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	c := clienttest.Start(t, w.in1)
	ctx := testCtx(t)
	for i := range 2 {
		if _, err := c.AppendToTable(ctx, "readings", map[string]any{"tsp": t0.Add(time.Hour + time.Duration(i)*time.Second),
			"sensor": "s9", "celcius": 30}); err != nil {
			t.Fatal(err)
		}
	}
	_, body := w.get(t, "/tables/"+w.realm+"/readings")
	body = html.UnescapeString(body)
	for _, s := range []string{`id="dropped"`, "key <code>celcius</code>, which no column reads: dropped from 2 row(s)",
		"append." + strconv.Itoa(w.in1.Device().Project().Key())} {
		if !strings.Contains(body, s) {
			t.Errorf("the table page lacks %q:\n%s", s, body)
		}
	}
	_, body = w.get(t, "/tables")
	if !strings.Contains(body, "writes lost data (2 rows)") {
		t.Errorf("the table list does not mark readings:\n%s", body)
	}
	_, body = w.get(t, "/tables/"+w.realm+"/error-logs")
	if strings.Contains(body, `id="dropped"`) {
		t.Error("error-logs shows drops it did not have")
	}
}

// TestAppTableLinks: an app's page links each of its tables to the table
// page of every realm the app is installed in.
func TestAppTableLinks(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	_, body := w.get(t, "/apps/1")
	got := tableCells(t, body, "app-tables")
	want := [][]string{{"readings", w.realm}, {"error-logs", w.realm}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("tables of the app (-want +got):\n%s", diff)
	}
	for _, link := range []string{`<a href="/tables/` + w.realm + `/readings">readings</a>`, `href="/tables/` + w.realm + `/error-logs"`} {
		if !strings.Contains(body, link) {
			t.Errorf("the app page lacks %s:\n%s", link, body)
		}
	}
	// Installed in a second project: one link per realm.
	pr := w.p.AddProject("lab")
	other := w.p.Install(pr.AddDevice("bench"), w.in1.App(), platformtest.Dev)
	_, body = w.get(t, "/apps/1")
	if !strings.Contains(body, `<code>readings</code>`) || !strings.Contains(body, `href="/tables/`+other.Realm()+`/readings"`) {
		t.Errorf("two realms: the app page does not link both:\n%s", body)
	}
}
