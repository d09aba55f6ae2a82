package console_test

import (
	"html"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestPages loads every page and checks that each shows what it is for.
func TestPages(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	r := w.realm
	for _, tc := range []struct{ path, want string }{
		{"/", "installations in 1 realms"},
		{"/fleet", "press-2"},
		{"/devices/1", "APP_AUTH_ID"},
		{"/apps/1", "readings"},
		{"/sessions", "No session is joined."},
		{"/traffic", "Recorded inbound messages"},
		{"/tables", "/tables/" + r + "/readings"},
		{"/tables/" + r + "/readings", "One reading per sensor"},
		{"/tables/" + r + "/error-logs", "No rows."},
		{"/files", "/files/" + r},
		{"/files/" + r, "shots/press.png"},
		{"/agents", "read_temperature"},
		{"/agents/" + r + "/1/assistant/read_temperature", "1.1.1.DEV.read_temperature"},
		{"/faults", "Drop connections"},
		{"/assets/console.css", "--accent"},
		{"/assets/console.js", "new WebSocket"},
	} {
		code, body := w.get(t, tc.path)
		if code != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("GET %s: %d, want 200 with %q:\n%s", tc.path, code, tc.want, body)
		}
	}
	for _, path := range []string{"/nope", "/devices/99", "/apps/99", "/tables/realm-9-9-dev/x", "/tables/" + r + "/nope",
		"/files/realm-9-9-dev", "/assets/layout.html", "/agents/" + r + "/2/assistant/nope"} {
		if code, _ := w.get(t, path); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", path, code)
		}
	}
}

// TestFleet checks the devices of the fleet page and who is online.
func TestFleet(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	_, body := w.get(t, "/fleet")
	s1, s2 := w.in1.Device().Serial(), w.in2.Device().Serial()
	got := tableCells(t, body, "devices-1")
	want := [][]string{
		{"1", "press-1", s1, "offline", "—", "line-1", "sensors DEV · " + w.realm + " · 1.0.0 · RUNNING"},
		{"2", "press-2", s2, "offline", "—", "line-1", "sensors DEV · " + w.realm + " · 1.0.0 · RUNNING"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	for _, s := range []string{"Project factory", "ironflock.location_service.update", "0 device(s) on the map, 2 without a location"} {
		if !strings.Contains(body, s) {
			t.Errorf("fleet page lacks %q", s)
		}
	}
}

// TestFleetLocations: a device's position shows as numbers in the fleet,
// on the map and on the device's page.
func TestFleetLocations(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	c := clienttest.Start(t, w.in1)
	if err := c.SetDeviceLocation(testCtx(t), 8.68, -50.11); err != nil {
		t.Fatal(err)
	}
	loc, _ := w.in1.Device().Location()
	set := "long 8.68 · lat -50.11 set " + loc.UpdatedAt.Format("2006-01-02 15:04:05.000Z")
	_, body := w.get(t, "/fleet")
	got := tableCells(t, body, "devices-1")
	if len(got) != 2 || got[0][4] != set || got[1][4] != "—" {
		t.Errorf("location cells %q, want %q and —", [][]string{got[0][4:5], got[1][4:5]}, set)
	}
	// On the map: longitude 8.68 is (8.68+180)*2 px from the left edge,
	// latitude -50.11 is (90+50.11)*2 px from the top.
	for _, s := range []string{`<g class="pin on" id="map-device-1"><title>press-1: long 8.68 · lat -50.11</title>`,
		`<circle cx="377.36" cy="280.22" r="5"/>`, "1 device(s) on the map, 1 without a location"} {
		if !strings.Contains(html.UnescapeString(body), s) {
			t.Errorf("fleet page lacks %q", s)
		}
	}
	if strings.Contains(body, `id="map-device-2"`) {
		t.Error("press-2 is on the map without a location")
	}
	for _, s := range []string{"http://", "https://"} {
		if i := strings.Index(body[strings.Index(body, `<svg class="map"`):], s); i >= 0 {
			t.Errorf("the map refers to the network: %q", s)
		}
	}
	_, body = w.get(t, "/devices/1")
	if text := strings.Join(strings.Fields(html.UnescapeString(tagRe.ReplaceAllString(body, ""))), " "); !strings.Contains(text, "Location"+set) {
		t.Errorf("the device page lacks %q:\n%s", "Location"+set, text)
	}
}

// TestFleetWithoutLocationService: the page says the service is off.
func TestFleetWithoutLocationService(t *testing.T) {
	p := platformtest.New(t, platformtest.WithConsole(platformtest.Console{}), platformtest.WithoutLocationService())
	p.AddDevice("d")
	res, err := http.Get(p.HTTPURL() + "/fleet")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(b), "runs without the location service") {
		t.Errorf("the fleet page does not say the location service is off:\n%s", b)
	}
}

// TestDeviceEnvironment checks that the secret is shown only on request.
func TestDeviceEnvironment(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	env := w.in1.Env()
	_, body := w.get(t, "/devices/1")
	body = html.UnescapeString(body)
	if strings.Contains(body, env["APP_AUTH_SECRET"]) {
		t.Error("the secret shows without being asked for")
	}
	for _, k := range []string{"APP_AUTH_ID", "DEVICE_SERIAL_NUMBER", "DEVICE_ENDPOINT_URL"} {
		if !strings.Contains(body, env[k]) {
			t.Errorf("environment lacks %s=%s", k, env[k])
		}
	}
	if !strings.Contains(body, "show the secret") {
		t.Error("no link to show the secret")
	}
	_, body = w.get(t, "/devices/1?show="+w.realm)
	if !strings.Contains(html.UnescapeString(body), env["APP_AUTH_SECRET"]) {
		t.Error("the secret does not show on request")
	}
}
