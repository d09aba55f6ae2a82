package console_test

import (
	"fmt"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// cappedDevices is how many devices the capped world's app and group
// have: more than the console's cap of 10 names per list.
const cappedDevices = 300

var nodeRe = regexp.MustCompile(`node-\d{3}`)

// cappedWorld is a platform with the console, project "fleet" (swarm 7)
// with cappedDevices devices node-000… (keys 1000…, made in the reverse
// order), all in group "all" (key 41) and running app "meter" (key 3,
// with tables and agents), group "pair" (key 42) of two of them, and
// device "outsider" (key 5000) that runs nothing.
func newCappedWorld(t *testing.T) (*world, string) {
	t.Helper()
	p := platformtest.New(t, platformtest.WithConsole(platformtest.Console{Write: true}))
	seed := &platformtest.Seed{
		Projects: []platformtest.SeedProject{{Name: "fleet", SwarmKey: 7}},
		Apps:     []platformtest.SeedApp{{Name: "meter", AppKey: 3, DataTemplate: dataTemplate, AITemplate: agentTemplate}},
	}
	pr := &seed.Projects[0]
	all := platformtest.SeedGroup{Name: "all", GroupKey: 41}
	for i := cappedDevices - 1; i >= 0; i-- {
		name := fmt.Sprintf("node-%03d", i)
		pr.Devices = append(pr.Devices, platformtest.SeedDevice{Name: name, DeviceKey: 1000 + i})
		all.Devices = append(all.Devices, name)
		seed.Installations = append(seed.Installations, platformtest.SeedInstallation{Project: "fleet", Device: name, App: "meter"})
	}
	pr.Devices = append(pr.Devices, platformtest.SeedDevice{Name: "outsider", DeviceKey: 5000})
	pr.Groups = []platformtest.SeedGroup{all, {Name: "pair", GroupKey: 42, Devices: []string{"node-200", "node-100"}}}
	res, err := p.Reconcile(seed)
	if err != nil {
		t.Fatal(err)
	}
	return &world{p: p, http: &http.Client{Timeout: time.Minute}}, res.Installations[0].Realm()
}

// names returns the distinct device names of the fleet in s, sorted.
func names(s string) []string {
	out := nodeRe.FindAllString(s, -1)
	slices.Sort(out)
	return slices.Compact(out)
}

// firstTen are the names of the ten devices with the lowest keys.
func firstTen() []string {
	var out []string
	for i := range 10 {
		out = append(out, fmt.Sprintf("node-%03d", i))
	}
	return out
}

// section returns the part of page from the element with id to the end
// of the element named end that follows it.
func section(t *testing.T, page, id, end string) string {
	t.Helper()
	i := strings.Index(page, `id="`+id+`"`)
	if i < 0 {
		t.Fatalf("no element %q in the page:\n%s", id, page)
	}
	rest := page[i:]
	if j := strings.Index(rest, "</"+end+">"); j >= 0 {
		rest = rest[:j]
	}
	return rest
}

// TestCappedDeviceLists: with a group and an app on 300 devices, the
// fleet page's groups, the table browser, the row form and the Agents
// page name at most 10 devices each (the first by key), say how many
// there are and link to the paged, searchable list of them all; a short
// list stays whole.
func TestCappedDeviceLists(t *testing.T) {
	w, realm := newCappedWorld(t)
	get := func(path string) string { return w.page(t, path) }
	capped := func(where, part, link string) {
		t.Helper()
		if got := names(part); !slices.Equal(got, firstTen()) {
			t.Errorf("%s names %d devices %v, want the first 10 by key", where, len(got), got)
		}
		for _, s := range []string{"10 of 300", `href="` + html.EscapeString(link) + `"`} {
			if !strings.Contains(part, s) {
				t.Errorf("%s lacks %q:\n%s", where, s, part)
			}
		}
	}

	// The fleet page: a group's members.
	body := get("/fleet")
	groups := tableCells(t, body, "groups-7")
	if len(groups) != 2 || groups[0][1] != "all" || !strings.HasPrefix(groups[0][2], "300 device(s): node-000, node-001") {
		t.Fatalf("the groups table: %v", groups)
	}
	allRow := section(t, body, "groups-7", "table")
	allRow = allRow[:strings.Index(allRow, "<td>pair</td>")]
	capped("group all", allRow, "/fleet?group=41")
	if groups[1][2] != "2 device(s): node-100, node-200" {
		t.Errorf("group pair's devices: %q, want both, by key, without a cap", groups[1][2])
	}
	body = get("/fleet?group=41")
	rows := tableCells(t, body, "devices-7")
	if len(rows) != 50 || rows[0][1] != "node-000" || !strings.Contains(body, "1–50 of 300") ||
		!strings.Contains(body, `<input type="hidden" name="group" value="41">`) || !strings.Contains(body, `id="group-filter"`) {
		t.Errorf("the group's devices: %d rows from %q", len(rows), first(rows))
	}
	if rows = tableCells(t, get("/fleet?group=41&q=node-29"), "devices-7"); len(rows) != 10 || rows[0][1] != "node-290" {
		t.Errorf("a search among the group's devices lists %d from %q, want 10 from node-290", len(rows), first(rows))
	}
	if rows = tableCells(t, get("/fleet?group=42&q=outsider"), "devices-7"); len(rows) != 1 || rows[0][0] != "None of its devices on this page." {
		t.Errorf("a device outside the group is listed: %v", rows)
	}
	if code, body := w.get(t, "/fleet?group=999"); code != http.StatusNotFound || !strings.Contains(html.UnescapeString(body), `no group with key "999" (parameter group)`) {
		t.Errorf("an unknown group: %d\n%s", code, body)
	}

	// The table browser: a realm's devices.
	all := "/apps/3?realm=" + url.QueryEscape(realm)
	capped("the realm on /tables", section(t, get("/tables"), realm, "h2"), all)
	body = get(all)
	if rows = tableCells(t, body, "app-installations"); len(rows) != 50 || rows[0][0] != "node-000" || !strings.Contains(body, "1–50 of 300") {
		t.Errorf("the realm's installations: %d rows from %v", len(rows), rows[0])
	}
	if code, body := w.get(t, "/apps/3?realm=realm-9-9-DEV"); code != http.StatusNotFound || !strings.Contains(html.UnescapeString(body), `no realm "realm-9-9-DEV" (parameter realm)`) {
		t.Errorf("a realm not of the app: %d\n%s", code, body)
	}

	// The row form: a key to type, not 300 options.
	form := get("/tables/" + realm + "/readings/row")
	if n := len(names(form)); n != 0 || strings.Contains(form, `<select name="device"`) || !strings.Contains(form, `id="device-key"`) ||
		!strings.Contains(form, "one of the 300 devices") || !strings.Contains(form, `href="`+html.EscapeString(all)+`"`) {
		t.Errorf("the row form names %d devices, or lacks the key input:\n%s", n, form)
	}

	// The Agents page: the realm's devices, and a tool's.
	body = get("/agents")
	capped("the realm on /agents", section(t, body, "agents-"+realm, "h2"), all)
	tool := section(t, body, "tool-assistant-read_temperature", "tr")
	if n := strings.Count(tool, `class="tool-device"`); n != 10 {
		t.Errorf("the tool lists %d devices, want 10", n)
	}
	capped("the tool", tool, all)
	pick := "/agents/" + realm + "/device/assistant/read_temperature"
	if !strings.Contains(tool, `action="`+pick+`"`) || !strings.Contains(tool, "10 of 300 devices shown") {
		t.Errorf("the tool lacks the form to open it on a device by key:\n%s", tool)
	}
	if form := get(pick + "?key=1150"); !strings.Contains(form, "Call read_temperature on node-150") {
		t.Errorf("the tool opened on key 1150:\n%s", form)
	}
	for key, want := range map[string]string{"abc": `Field key: "abc" is not a device key.`, "5000": "app 3 is not installed on device 5000"} {
		code, body := w.get(t, pick+"?key="+key)
		if code == http.StatusOK || !strings.Contains(html.UnescapeString(body), want) {
			t.Errorf("the tool opened on key %s: %d, want a refusal saying %q\n%s", key, code, want, body)
		}
	}
}

// TestRowFormDeviceKey: on a realm with more devices than the form lists,
// a row is written as the device whose key is typed; an unknown key, one
// of a device that does not run the app, or no number is refused naming
// the field and the key, and nothing is stored.
func TestRowFormDeviceKey(t *testing.T) {
	w, realm := newCappedWorld(t)
	path := "/tables/" + realm + "/readings/row"
	code, _ := w.post(t, path, url.Values{"device": {"1150"}, "c.tsp": {"2026-01-01T10:00:00Z"}, "c.sensor": {"s1"}, "c.celsius": {"21.5"}})
	if code != http.StatusOK { // the redirect to the table page, followed
		t.Fatalf("append as key 1150: %d", code)
	}
	rows := w.p.TableRows(realm, "readings")
	serial := w.p.InstallationOf(1150, 3, platformtest.Dev).Device().Serial()
	if len(rows) != 1 || rows[0]["sensor"] != "s1" || rows[0]["device_key"] != int64(1150) || rows[0]["authid"] != serial {
		t.Fatalf("rows %v, want one written as device 1150 (%s)", rows, serial)
	}
	for key, want := range map[string]string{
		"99999": "field device: no device with key 99999 runs the app of realm " + realm,
		"5000":  "field device: no device with key 5000 runs the app of realm " + realm,
		"n1":    `field device: "n1" is not a device key`,
		"":      `field device: "" is not a device key`,
	} {
		code, body := w.post(t, path, url.Values{"device": {key}, "c.sensor": {"s2"}, "c.celsius": {"20"}})
		if code != http.StatusUnprocessableEntity || !strings.Contains(html.UnescapeString(body), want) {
			t.Errorf("device %q: %d, want 422 saying %q\n%s", key, code, want, body)
		}
		if key != "" && !strings.Contains(body, `name="device" id="device-key" value="`+key+`"`) {
			t.Errorf("device %q: the form does not keep the key typed", key)
		}
	}
	if n := len(w.p.TableRows(realm, "readings")); n != 1 {
		t.Errorf("%d rows stored after the refusals, want 1", n)
	}
}
