package fleetfiles

import (
	"net/http"
	"testing"
)

func TestObjectHeaders(t *testing.T) {
	for _, tc := range []struct {
		ct, key  string
		download bool
		wantCT   string
		wantDisp string
	}{
		{"image/png", "a/b.png", false, "image/png", "inline; filename=b.png"},
		{"image/png", "a/b.png", true, "image/png", "attachment; filename=b.png"},
		{"Application/PDF; version=1.7", "r.pdf", false, "Application/PDF; version=1.7", "inline; filename=r.pdf"},
		{"image/svg+xml", "x.svg", false, "image/svg+xml", "attachment; filename=x.svg"},
		{"text/html; charset=utf-8", "i.html", false, "text/html; charset=utf-8", "attachment; filename=i.html"},
		{"", "blob", false, "application/octet-stream", "attachment; filename=blob"},
		{"image/png, text/html", "bad", false, "image/png, text/html", "attachment; filename=bad"},
		{"image/png", "caf\u00e9 1.png", false, "image/png", "inline; filename*=utf-8''caf%C3%A9%201.png"},
	} {
		h := http.Header{}
		ObjectHeaders(h, tc.ct, tc.key, tc.download)
		if h.Get("Content-Type") != tc.wantCT || h.Get("Content-Disposition") != tc.wantDisp ||
			h.Get("Content-Security-Policy") != "sandbox" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("ObjectHeaders(%q, %q, %v) = %v", tc.ct, tc.key, tc.download, h)
		}
	}
	for requested, want := range map[string]bool{"": false, "inline; filename=a": false, "attachment": true, `ATTACHMENT; filename="a b"`: true, "nonsense;;": false} {
		if got := wantsDownload(requested); got != want {
			t.Errorf("wantsDownload(%q) = %v", requested, got)
		}
	}
}
