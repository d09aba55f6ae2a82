package fleetfiles_test

import (
	"bytes"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// urls mints a read URL of key and an upload URL of key2.
func (f *filesFixture) urls(t *testing.T, key, key2 string) (read, upload string) {
	t.Helper()
	r := f.OK(t, wire.FilesReadURL, map[string]any{"key": key})
	w := f.OK(t, wire.FilesWriteURL, map[string]any{"key": key2, "content_type": "text/plain"})
	return r["url"].(string), w["url"].(string)
}

func TestObjectStoreHTTP(t *testing.T) { backends.EachFileStore(t, testObjectStoreHTTP) }

func testObjectStoreHTTP(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	f.p.StoreFile(f.in.Realm(), "default", "x.txt", []byte("0123456789"), "text/plain")
	read, upload := f.urls(t, "x.txt", "y.txt")
	text := map[string]string{"Content-Type": "text/plain"}

	// Reads: HEAD, ranges, conditional requests.
	code, _, h := worldtest.Do(t, http.MethodHead, read, nil, 0, nil)
	if code != http.StatusOK || h.Get("Content-Length") != "10" || h.Get("ETag") == "" || h.Get("Accept-Ranges") != "bytes" || h.Get("Last-Modified") == "" {
		t.Errorf("HEAD: %d %v", code, h)
	}
	if code, _, _ := worldtest.Do(t, http.MethodGet, read, nil, 0, map[string]string{"Range": "bytes=20-"}); code != http.StatusRequestedRangeNotSatisfiable {
		t.Errorf("range past the end: %d", code)
	}
	if code, _, _ := worldtest.Do(t, http.MethodGet, read, nil, 0, map[string]string{"If-None-Match": h.Get("ETag")}); code != http.StatusNotModified {
		t.Errorf("If-None-Match: %d", code)
	}

	// Signatures cover the method, the path and the query.
	for name, u := range map[string]string{
		"other key":     strings.Replace(read, "/x.txt?", "/z.txt?", 1),
		"longer expiry": strings.Replace(read, "X-Amz-Expires=900", "X-Amz-Expires=9000", 1),
		"no signature":  read[:strings.Index(read, "X-Amz-Signature")],
	} {
		if code, body, _ := worldtest.Do(t, http.MethodGet, u, nil, 0, nil); code != http.StatusForbidden {
			t.Errorf("%s: %d %s", name, code, body)
		}
	}
	if code, body, _ := worldtest.Do(t, http.MethodPut, read, strings.NewReader("x"), 1, text); code != http.StatusForbidden || !strings.Contains(body, "SignatureDoesNotMatch") {
		t.Errorf("PUT to a read URL: %d %s", code, body)
	}
	base, _ := url.Parse(read)
	if code, body, _ := worldtest.Do(t, http.MethodGet, f.p.HTTPURL()+"/store/if-1-99/default/x.txt?"+base.RawQuery, nil, 0, nil); code != http.StatusNotFound || !strings.Contains(body, "NoSuchBucket") {
		t.Errorf("unknown bucket: %d %s", code, body)
	}
	if code, body, _ := worldtest.Do(t, http.MethodDelete, read, nil, 0, nil); code != http.StatusForbidden && code != http.StatusMethodNotAllowed {
		t.Errorf("DELETE: %d %s", code, body)
	}

	// Uploads: Content-Length required, the minted Content-Type, the size.
	if code, body, _ := worldtest.Do(t, http.MethodPut, upload, strings.NewReader("chunked"), -1, text); code != http.StatusLengthRequired || !strings.Contains(body, "MissingContentLength") {
		t.Errorf("chunked upload: %d %s", code, body)
	}
	if code, body, _ := worldtest.Do(t, http.MethodPut, upload, strings.NewReader("{}"), 2, map[string]string{"Content-Type": "application/json"}); code != http.StatusForbidden {
		t.Errorf("other content type: %d %s", code, body)
	}
	f.p.SetFilesQuota(f.in.Realm(), 12)
	if code, body, _ := worldtest.Do(t, http.MethodPut, upload, strings.NewReader("abc"), 3, text); code != http.StatusForbidden || !strings.Contains(body, wire.QuotaExceededCode) {
		t.Errorf("over quota: %d %s", code, body)
	}
	f.p.SetFilesQuota(f.in.Realm(), 0)
	if code, body, h := worldtest.Do(t, http.MethodPut, upload, strings.NewReader("abc"), 3, text); code != http.StatusOK || h.Get("ETag") == "" {
		t.Errorf("upload: %d %s %v", code, body, h)
	}
	if got, _ := f.p.FileContent(f.in.Realm(), "default", "y.txt"); string(got) != "abc" {
		t.Errorf("stored %q", got)
	}

	// The devices' clocks: a Date header more than 15 minutes off.
	date := map[string]string{"Date": time.Now().UTC().Format(http.TimeFormat)}
	if code, _, _ := worldtest.Do(t, http.MethodGet, read, nil, 0, date); code != http.StatusOK {
		t.Errorf("with the right date: %d", code)
	}
	f.p.SetDeviceClockSkew(20 * time.Minute)
	if code, body, _ := worldtest.Do(t, http.MethodGet, read, nil, 0, date); code != http.StatusForbidden || !strings.Contains(body, wire.ClockSkewCode) {
		t.Errorf("skewed: %d %s", code, body)
	}
	if code, _, _ := worldtest.Do(t, http.MethodGet, read, nil, 0, nil); code != http.StatusOK {
		t.Errorf("without a Date header: %d", code)
	}
	f.p.SetDeviceClockSkew(0)

	// Unreachable: the connection closes before an answer.
	f.p.SetObjectStoreReachable(false)
	if resp, err := http.Get(read); err == nil {
		resp.Body.Close()
		t.Errorf("unreachable store answered %d", resp.StatusCode)
	}
	f.p.SetObjectStoreReachable(true)
	if code, _, _ := worldtest.Do(t, http.MethodGet, read, nil, 0, nil); code != http.StatusOK {
		t.Errorf("reachable again: %d", code)
	}
}

// TestObjectStoreEvents: a direct upload publishes files.events like a put.
func TestObjectStoreEvents(t *testing.T) { backends.EachFileStore(t, testObjectStoreEvents) }

func testObjectStoreEvents(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	events := worldtest.Subscribe(t, f.C, wire.FilesEventsTopic)
	upload := f.OK(t, wire.FilesWriteURL, map[string]any{"key": "up.txt", "content_type": "text/plain"})["url"].(string)
	if code, body, _ := worldtest.Do(t, http.MethodPut, upload, bytes.NewReader([]byte("up")), 2, map[string]string{"Content-Type": "text/plain"}); code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, body)
	}
	ev := worldtest.NextEvent(t, events, "the upload")[0].(map[string]any)
	obj := ev["object"].(map[string]any)
	if ev["action"] != "put" || obj["key"] != "up.txt" || obj["content_type"] != "text/plain" || obj["size"] != int64(2) {
		t.Errorf("event %v", ev)
	}
}

func TestPermanentURLCredentials(t *testing.T) {
	backends.EachFileStore(t, testPermanentURLCredentials)
}

func testPermanentURLCredentials(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	o := f.p.StoreFile(f.in.Realm(), "default", "doc.txt", []byte("doc"), "text/plain")
	sad := f.OK(t, wire.FilesNamespaces, nil)["sad_key"].(int64)
	u := f.p.HTTPURL() + "/f/" + worldtest.Itoa(sad) + "/default/doc.txt"
	serial := f.in.Device().Serial()
	legacy := func(r *http.Request) { r.SetBasicAuth(serial, serial) }
	get := func(u, method string, auth func(*http.Request)) int {
		req, _ := http.NewRequest(method, u, nil)
		if auth != nil {
			auth(req)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := get(u, http.MethodGet, legacy); code != http.StatusOK {
		t.Errorf("legacy credential: %d", code)
	}
	if code := get(u+"?v="+o.ETag, http.MethodHead, legacy); code != http.StatusOK {
		t.Errorf("HEAD: %d", code)
	}
	if code := get(u, http.MethodPost, legacy); code != http.StatusMethodNotAllowed {
		t.Errorf("POST: %d", code)
	}
	if code := get(f.p.HTTPURL()+"/f/999/default/doc.txt", http.MethodGet, legacy); code != http.StatusNotFound {
		t.Errorf("unknown backend: %d", code)
	}
	if code := get(f.p.HTTPURL()+"/f/"+worldtest.Itoa(sad)+"/videos/doc.txt", http.MethodGet, legacy); code != http.StatusNotFound {
		t.Errorf("unknown namespace: %d", code)
	}
	if code := get(u, http.MethodGet, func(r *http.Request) { r.Header.Set("Authorization", "Bearer nobody") }); code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d", code)
	}
	// Another project's device is not admitted.
	other := f.p.AddProject("elsewhere").AddDevice("intruder").Serial()
	if code := get(u, http.MethodGet, func(r *http.Request) { r.SetBasicAuth(other, other) }); code != http.StatusUnauthorized {
		t.Errorf("foreign device: %d", code)
	}
	// Uninstalled: no longer admitted.
	f.p.Uninstall(f.in)
	if code := get(u, http.MethodGet, legacy); code != http.StatusUnauthorized {
		t.Errorf("after uninstall: %d", code)
	}
}

// TestPermanentURLStrict: strict mode refuses the legacy credential here
// too.
func TestPermanentURLStrict(t *testing.T) { backends.EachFileStore(t, testPermanentURLStrict) }

func testPermanentURLStrict(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s, platformtest.WithStrictAuth())
	f.p.StoreFile(f.in.Realm(), "default", "doc.txt", []byte("doc"), "")
	sad := f.OK(t, wire.FilesNamespaces, nil)["sad_key"].(int64)
	req, _ := http.NewRequest(http.MethodGet, f.p.HTTPURL()+"/f/"+worldtest.Itoa(sad)+"/default/doc.txt", nil)
	serial := f.in.Device().Serial()
	req.SetBasicAuth(serial, serial)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("legacy credential in strict mode: %d", resp.StatusCode)
	}
}

func TestObjectStoreAbsent(t *testing.T) {
	p := platformtest.New(t, platformtest.WithoutFileService())
	for _, path := range []string{"/store/if-1-1/default/x", "/f/1/default/x"} {
		resp, err := http.Get(p.HTTPURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d", path, resp.StatusCode)
		}
	}
}

// TestObjectServingIsInert: an app's objects are served on the console's
// origin, so nothing in them may act there: every answer of the object
// store and of permanent URLs carries Content-Security-Policy: sandbox and
// X-Content-Type-Options: nosniff, and every type that is not known safe
// (HTML, SVG, XML, JavaScript, anything unknown) is an attachment. Raster
// images and PDFs may show inline.
func TestObjectServingIsInert(t *testing.T) { backends.EachFileStore(t, testObjectServingIsInert) }

func testObjectServingIsInert(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	sad := f.OK(t, wire.FilesNamespaces, nil)["sad_key"].(int64)
	serial := f.in.Device().Serial()
	for _, tc := range []struct {
		key, contentType, body string
		inline                 bool
	}{
		{"page.html", "text/html", `<script>fetch("/v1/platform/devices")</script>`, false},
		{"pic.svg", "image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>`, false},
		{"feed.xml", "application/xml", `<x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>`, false},
		{"app.js", "text/javascript", `alert(1)`, false},
		{"page.xhtml", "application/xhtml+xml; charset=utf-8", `<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>`, false},
		{"twice", "image/png, text/html", `<script>alert(1)</script>`, false},
		{"upper.html", "TEXT/HTML", `<script>alert(1)</script>`, false},
		{"data.bin", "", `<script>alert(1)</script>`, false},
		{"note.txt", "text/plain", `<script>alert(1)</script>`, false},
		{"photo.png", "image/png", "\x89PNG\r\n\x1a\n", true},
		{"photo.jpg", "image/jpeg; foo=bar", "\xff\xd8\xff", true},
		{"report.pdf", "application/pdf", "%PDF-1.7", true},
	} {
		t.Run(tc.key, func(t *testing.T) {
			f.p.StoreFile(f.in.Realm(), "default", tc.key, []byte(tc.body), tc.contentType)
			share := f.OK(t, wire.FilesReadURL, map[string]any{"key": tc.key})["url"].(string)
			permanent := f.p.HTTPURL() + "/f/" + worldtest.Itoa(sad) + "/default/" + tc.key
			for name, req := range map[string]func() *http.Request{
				"share URL":       func() *http.Request { r, _ := http.NewRequest(http.MethodGet, share, nil); return r },
				"share URL, HEAD": func() *http.Request { r, _ := http.NewRequest(http.MethodHead, share, nil); return r },
				"share URL, range": func() *http.Request {
					r, _ := http.NewRequest(http.MethodGet, share, nil)
					r.Header.Set("Range", "bytes=1-")
					return r
				},
				"permanent URL": func() *http.Request {
					r, _ := http.NewRequest(http.MethodGet, permanent, nil)
					r.SetBasicAuth(serial, serial)
					return r
				},
			} {
				resp, err := http.DefaultClient.Do(req())
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				h := resp.Header
				if resp.StatusCode/100 != 2 || h.Get("Content-Security-Policy") != "sandbox" || h.Get("X-Content-Type-Options") != "nosniff" {
					t.Errorf("%s: %d, Content-Security-Policy %q, X-Content-Type-Options %q", name, resp.StatusCode,
						h.Get("Content-Security-Policy"), h.Get("X-Content-Type-Options"))
				}
				disp, params, err := mime.ParseMediaType(h.Get("Content-Disposition"))
				if wantDisp := map[bool]string{true: "inline", false: "attachment"}[tc.inline]; err != nil || disp != wantDisp || params["filename"] != tc.key {
					t.Errorf("%s: Content-Disposition %q, want %s with filename %s", name, h.Get("Content-Disposition"), wantDisp, tc.key)
				}
			}
		})
	}
	// The answers without an object carry the headers too.
	read := f.OK(t, wire.FilesReadURL, map[string]any{"key": "page.html"})["url"].(string)
	for name, u := range map[string]string{
		"bad signature":     strings.Replace(read, "X-Amz-Signature=", "X-Amz-Signature=0", 1),
		"unknown permanent": f.p.HTTPURL() + "/f/" + worldtest.Itoa(sad) + "/default/nothing.html",
	} {
		code, _, h := worldtest.Do(t, http.MethodGet, u, nil, 0, nil)
		if code < 400 || h.Get("Content-Security-Policy") != "sandbox" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d %v", name, code, h)
		}
	}
}
