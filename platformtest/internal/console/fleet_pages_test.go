package console_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// TestFleetPaged: with 20,000 devices, each with an installation, the
// fleet page and the app's page list one page of 50 each, the pager
// walks them, a search finds a device by name and by serial number, and
// the overview counts them all.
func TestFleetPaged(t *testing.T) {
	const n = 20_000
	p := platformtest.New(t, platformtest.WithConsole(platformtest.Console{}))
	seed := &platformtest.Seed{
		Projects: []platformtest.SeedProject{{Name: "fleet", SwarmKey: 7}},
		Apps:     []platformtest.SeedApp{{Name: "meter", AppKey: 3, DataTemplate: dataTemplate}},
	}
	for i := range n {
		name := fmt.Sprintf("meter-%05d", i)
		seed.Projects[0].Devices = append(seed.Projects[0].Devices, platformtest.SeedDevice{Name: name})
		seed.Installations = append(seed.Installations, platformtest.SeedInstallation{Project: "fleet", Device: name, App: "meter"})
	}
	res, err := p.Reconcile(seed)
	if err != nil {
		t.Fatal(err)
	}
	w := &world{p: p, http: &http.Client{Timeout: time.Minute}}
	get := func(path string) string { return w.page(t, path) }

	body := get("/fleet")
	rows := tableCells(t, body, "devices-7")
	if len(rows) != 50 || rows[0][1] != "meter-00000" || rows[49][1] != "meter-00049" {
		t.Errorf("the first page lists %d devices, from %q: want 50 from meter-00000 to meter-00049", len(rows), first(rows))
	}
	for _, s := range []string{"1–50 of 20000", "page 1 of 400", "20000 device(s)", `rel="next" href="?page=2"`} {
		if !strings.Contains(body, s) {
			t.Errorf("the fleet page lacks %q", s)
		}
	}
	if strings.Contains(body, `rel="prev"`) {
		t.Error("the first page links to a page before it")
	}
	rows = tableCells(t, get("/fleet?page=400"), "devices-7")
	if len(rows) != 50 || rows[49][1] != "meter-19999" {
		t.Errorf("the last page lists %d devices, ending %v", len(rows), rows[len(rows)-1])
	}

	body = get("/fleet?q=METER-12345")
	rows = tableCells(t, body, "devices-7")
	if len(rows) != 1 || rows[0][1] != "meter-12345" || !strings.Contains(body, "1–1 of 1 matching") {
		t.Errorf("a search by name lists %v", rows)
	}
	serial := res.Installations[4321].Device().Serial()
	rows = tableCells(t, get("/fleet?q="+url.QueryEscape(serial)), "devices-7")
	if len(rows) != 1 || rows[0][1] != "meter-04321" || rows[0][2] != serial {
		t.Errorf("a search by serial %s lists %v", serial, rows)
	}
	rows = tableCells(t, get("/fleet?q=meter-1"), "devices-7")
	if len(rows) != 50 || rows[0][1] != "meter-10000" {
		t.Errorf("a search matching 10,000 devices lists %d, from %q", len(rows), first(rows))
	}

	body = get("/apps/3")
	rows = tableCells(t, body, "app-installations")
	if len(rows) != 50 || !strings.Contains(body, "1–50 of 20000") {
		t.Errorf("the app's page lists %d installations", len(rows))
	}
	if rows = tableCells(t, get("/apps/3?q=meter-00777"), "app-installations"); len(rows) != 1 || rows[0][0] != "meter-00777" {
		t.Errorf("a search of the app's installations lists %v", rows)
	}
	body = get("/")
	for _, s := range []string{"<b>20000</b> devices, 0 online", "<b>20000</b> installations in 1 realms"} {
		if !strings.Contains(body, s) {
			t.Errorf("the overview lacks %q", s)
		}
	}
}

func first(rows [][]string) string {
	if len(rows) == 0 || len(rows[0]) < 2 {
		return ""
	}
	return rows[0][1]
}
