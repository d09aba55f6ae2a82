package console_test

import (
	"encoding/json"
	"html"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/dotenv"
	"github.com/flockgo/ironflock/platformtest"
)

// TestEnvDownload: GET /env/{device} answers an installation's environment
// in three formats, finds the device by key, name or serial, and explains
// what it cannot answer; the device page links to it.
func TestEnvDownload(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	want := w.in1.Env()
	for _, device := range []string{"1", "press-1", w.in1.Device().Serial()} {
		code, body := w.get(t, "/env/"+device)
		got, err := dotenv.Parse(strings.NewReader(strings.ReplaceAll(body, "export ", "")))
		if code != http.StatusOK || err != nil {
			t.Fatalf("GET /env/%s: %d %v\n%s", device, code, err, body)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("shell exports of %s (-want +got):\n%s", device, diff)
		}
	}
	_, body := w.get(t, "/env/press-1?format=dotenv&app=sensors&stage=dev")
	if got, err := dotenv.Parse(strings.NewReader(body)); err != nil || !cmp.Equal(want, got) {
		t.Errorf("dotenv: %v\n%s", err, body)
	}
	_, body = w.get(t, "/env/press-1?format=json")
	var got map[string]string
	if err := json.Unmarshal([]byte(body), &got); err != nil || !cmp.Equal(want, got) {
		t.Errorf("json: %v\n%s", err, body)
	}

	// A second installation on press-1 makes APP necessary.
	other := w.p.AddApp("other", "")
	w.p.Install(w.in1.Device(), other, platformtest.Prod)
	w.p.AddDevice("press-1") // a namesake in the default project
	for path, wantAnswer := range map[string]struct {
		code int
		text string
	}{
		"/env/1":                        {http.StatusConflict, "device press-1 has 2 installations: sensors DEV, other PROD; name the app"},
		"/env/1?app=other":              {http.StatusOK, "export APP_KEY='" + strconv.Itoa(other.Key()) + "'"},
		"/env/1?app=sensors&stage=PROD": {http.StatusNotFound, "device press-1 has no installation of app sensors in PROD; it has: sensors DEV, other PROD"},
		"/env/press-1":                  {http.StatusConflict, `2 devices are named "press-1": key 1 in project factory, key 3 in project`},
		"/env/nope":                     {http.StatusNotFound, `there is no device "nope"`},
		"/env/3":                        {http.StatusNotFound, "device press-1 has no app installed"},
		"/env/2?format=yaml":            {http.StatusBadRequest, `unknown format "yaml": use shell, dotenv or json`},
	} {
		code, body := w.get(t, path)
		if code != wantAnswer.code || !strings.Contains(body, wantAnswer.text) {
			t.Errorf("GET %s: %d %q, want %d with %q", path, code, body, wantAnswer.code, wantAnswer.text)
		}
	}

	res, err := w.http.Get(w.p.HTTPURL() + "/env/2?format=dotenv&download=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if cd := res.Header.Get("Content-Disposition"); cd != `attachment; filename="press-2-sensors-dev.env"` {
		t.Errorf("Content-Disposition %q", cd)
	}
	_, body = w.get(t, "/devices/2")
	if !strings.Contains(html.UnescapeString(body), `href="/env/2?app=1&stage=DEV&format=dotenv&download=1"`) {
		t.Errorf("the device page does not link the .env download:\n%s", body)
	}
}
