package console_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// machinesTemplate has an entity table with a deletion marker and a
// secret.
const machinesTemplate = `data:
  tables:
    - tablename: machines
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Timestamp, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
        - {id: temp, name: Temperature, dataType: numeric}
        - {id: code, name: Code, dataType: string, secret: true}
        - {id: deleted, name: Deleted, dataType: boolean}
`

// machinesWorld is a platform with the console and app "machines" on two
// devices.
type machinesWorld struct {
	*world
	app string
}

func newMachinesWorld(t *testing.T, c platformtest.Console) *machinesWorld {
	t.Helper()
	p := platformtest.New(t, platformtest.WithConsole(c))
	pr := p.AddProject("plant")
	d1, d2 := pr.AddDevice("mill-1"), pr.AddDevice("mill-2")
	app := p.AddApp("machines", machinesTemplate)
	w := &world{p: p, in1: p.Install(d1, app, platformtest.Dev), in2: p.Install(d2, app, platformtest.Dev),
		http: &http.Client{Timeout: 20 * time.Second}}
	w.realm = w.in1.Realm()
	return &machinesWorld{world: w, app: "machines"}
}

// TestRowAppend appends rows from the console's form: typed by column,
// written as the chosen device, refused with the column named, and off
// (403) on a read-only console or from another site.
func TestRowAppend(t *testing.T) {
	w := newMachinesWorld(t, platformtest.Console{Write: true})
	path := "/tables/" + w.realm + "/machines/row"
	_, form := w.get(t, path)
	for _, s := range []string{`name="c.machine"`, `name="c.temp"`, `name="c.deleted"`, `name="device"`, "mill-2 (key 2)"} {
		if !strings.Contains(form, s) {
			t.Errorf("the form lacks %s", s)
		}
	}
	code, body := w.post(t, path, url.Values{"device": {"2"}, "c.machine": {"m1"}, "c.temp": {"warm"}})
	if code != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), `column "temp": "warm" is not a number`) {
		t.Errorf("a bad number: %d\n%s", code, body)
	}
	c := clienttest.Start(t, w.in1)
	fed := make(chan client.Row, 4) // the app's subscribers get the row, as after a device's append
	if _, err := c.SubscribeToTable(testCtx(t), "machines", func(_ context.Context, ev *client.TableEvent) { fed <- ev.Row }); err != nil {
		t.Fatal(err)
	}
	code, _ = w.post(t, path, url.Values{"device": {"2"}, "c.tsp": {"2026-01-01T10:00:00Z"}, "c.machine": {"m1"},
		"c.state": {"running"}, "c.temp": {"21.5"}, "c.code": {"s3cret"}})
	if code != http.StatusOK { // the redirect to the table page, followed
		t.Fatalf("append: %d", code)
	}
	select {
	case row := <-fed:
		if row["machine"] != "m1" || row["state"] != "running" {
			t.Errorf("published row %v", row)
		}
	case <-testCtx(t).Done():
		t.Fatal("the console's append was not published on transformed.machines")
	}
	rows, err := c.GetHistory(testCtx(t), "machines", &client.Query{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0]["machine"] != "m1" || rows[0]["temp"] != 21.5 || rows[0]["device_key"] != int64(2) ||
		rows[0]["authid"] != w.in2.Device().Serial() {
		t.Errorf("rows %v", rows)
	}
	for query, want := range map[string]string{"?entity=1&k.machine=m1": `name="c.state" value="running"`, "?entity=1": `name="c.state" value="idle"`} {
		if query == "?entity=1" { // an entity whose key is NULL
			if code, _ := w.post(t, path, url.Values{"device": {"1"}, "c.state": {"idle"}}); code != http.StatusOK {
				t.Fatalf("append with a NULL key: %d", code)
			}
		}
		_, form := w.get(t, path+query)
		if !strings.Contains(form, want) || !strings.Contains(form, `id="mark-deleted"`) {
			t.Errorf("the editor of %s lacks %s or Mark deleted:\n%s", query, want, form)
		}
	}
	if code, body := w.post(t, path, url.Values{"device": {"2"}, "c.tsp": {"2026-01-01T10:00:00Z"}, "c.machine": {"m1"}}); code != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "row-error") {
		t.Errorf("the same entity and tsp twice: %d\n%s", code, body)
	}
	if code, _ := w.do(t, http.MethodPost, path, url.Values{"device": {"1"}, "c.machine": {"m2"}},
		http.Header{"Origin": {"https://evil.example"}, "Sec-Fetch-Site": {"cross-site"}}); code != http.StatusForbidden {
		t.Errorf("a POST from another site: %d, want 403", code)
	}
	if n := len(w.p.TableRows(w.realm, "machines")); n != 2 {
		t.Errorf("%d rows stored, want 2", n)
	}

	ro := newMachinesWorld(t, platformtest.Console{})
	path = "/tables/" + ro.realm + "/machines/row"
	if code, body := ro.post(t, path, url.Values{"device": {"1"}, "c.machine": {"m1"}}); code != http.StatusForbidden ||
		!strings.Contains(body, "-console-write") {
		t.Errorf("read-only POST: %d\n%s", code, body)
	}
	if _, body := ro.get(t, path); !strings.Contains(body, " disabled>") {
		t.Error("the read-only form's button is not disabled")
	}
	if n := len(ro.p.TableRows(ro.realm, "machines")); n != 0 {
		t.Errorf("a read-only console stored %d rows", n)
	}
}
