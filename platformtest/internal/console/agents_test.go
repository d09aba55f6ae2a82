package console_test

import (
	"context"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/clienttest"
	"github.com/flockgo/ironflock/platformtest"
)

// TestToolCall fills a tool's generated form and calls the tool on a
// device.
func TestToolCall(t *testing.T) {
	w := newWorld(t, platformtest.Console{Write: true})
	ctx := testCtx(t)
	c := clienttest.Start(t, w.in1)
	got := make(chan map[string]any, 1)
	if _, err := c.RegisterDeviceFunction(ctx, "read_temperature", func(_ context.Context, inv *client.Invocation) (any, error) {
		got <- inv.Kwargs
		return map[string]any{"celsius": 21.5}, nil
	}); err != nil {
		t.Fatal(err)
	}
	path := "/agents/" + w.realm + "/1/assistant/read_temperature"
	_, form := w.get(t, path)
	for _, s := range []string{`name="p.sensor"`, `name="p.unit"`, "<option>F</option>", `name="p.samples"`, `name="convention"`} {
		if !strings.Contains(form, s) {
			t.Errorf("the form lacks %s", s)
		}
	}
	if code, body := w.post(t, path, url.Values{"p.unit": {"C"}}); code != http.StatusUnprocessableEntity ||
		!strings.Contains(body, "parameter &#34;sensor&#34; is required") {
		t.Errorf("without a required parameter: %d\n%s", code, body)
	}
	if code, _ := w.post(t, path, url.Values{"p.sensor": {"s1"}, "p.samples": {"many"}}); code != http.StatusUnprocessableEntity {
		t.Errorf("a bad integer: %d, want 422", code)
	}
	code, body := w.post(t, path, url.Values{"p.sensor": {"inlet"}, "p.unit": {"F"}, "p.samples": {"3"}, "convention": {"keyword"}})
	if code != http.StatusOK || !strings.Contains(html.UnescapeString(body), `"celsius": 21.5`) {
		t.Fatalf("call: %d\n%s", code, body)
	}
	if diff := cmp.Diff(map[string]any{"sensor": "inlet", "unit": "F", "samples": int64(3)}, <-got); diff != "" {
		t.Errorf("the device got (-want +got):\n%s", diff)
	}
	calls := w.p.ToolCalls()
	if len(calls) != 1 || calls[0].Tool != "read_temperature" {
		t.Errorf("tool calls %+v", calls)
	}
	_, body = w.get(t, "/faults")
	if !strings.Contains(html.UnescapeString(body), `call tool read_temperature of agent assistant on device press-1`) {
		t.Errorf("the action log lacks the call:\n%s", body)
	}
}

// TestFiles checks the storage usage and an object's download.
func TestFiles(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	w.p.SetFilesQuota(w.realm, 1000)
	_, body := w.get(t, "/files")
	if !strings.Contains(body, "1% of 1000 B") {
		t.Errorf("usage against the quota does not show:\n%s", body)
	}
	_, body = w.get(t, "/files/"+w.realm)
	want := [][]string{{"default", "shots/press.png", "16 B", "image/png"}}
	cells := tableCells(t, body, "objects")
	for i := range cells {
		cells[i] = cells[i][:4]
	}
	if diff := cmp.Diff(want, cells); diff != "" {
		t.Errorf("objects (-want +got):\n%s", diff)
	}
	// A download is an attachment that cannot act on the console's origin.
	w.p.StoreFile(w.realm, "default", "page.html", []byte("<script>alert(1)</script>"), "text/html")
	for key, ct := range map[string]string{"shots%2Fpress.png": "image/png", "page.html": "text/html"} {
		req, _ := http.NewRequest(http.MethodGet, w.p.HTTPURL()+"/files/"+w.realm+"/object?ns=default&key="+key, nil)
		res, err := w.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		h := res.Header
		if h.Get("Content-Type") != ct || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") ||
			h.Get("Content-Security-Policy") != "sandbox" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("download headers of %s: %v", key, h)
		}
	}
	if code, _ := w.get(t, "/files/"+w.realm+"/object?ns=default&key=nope"); code != http.StatusNotFound {
		t.Errorf("a missing object: %d, want 404", code)
	}
}
