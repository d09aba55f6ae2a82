package console_test

import (
	"html"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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
		{"/assets/console.js", "EventSource"},
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
		{"1", "press-1", s1, "offline", "line-1", "sensors DEV · " + w.realm + " · 1.0.0 · RUNNING"},
		{"2", "press-2", s2, "offline", "line-1", "sensors DEV · " + w.realm + " · 1.0.0 · RUNNING"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("devices (-want +got):\n%s", diff)
	}
	for _, s := range []string{"Project factory", "does not store device locations", "ironflock.location_service.update"} {
		if !strings.Contains(body, s) {
			t.Errorf("fleet page lacks %q", s)
		}
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
