package files_test

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/platformtest"
)

// fetch GETs u with an optional authorization and returns the status and
// body.
func fetch(t *testing.T, u string, auth func(*http.Request)) (int, []byte, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if auth != nil {
		auth(req)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// TestPermanentURL: refused without credentials, served with the app's
// credential and with a project member's token, cacheable for good with
// the etag as version.
func TestPermanentURL(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	o, err := e.st.Put(ctx, "plans/machine 1.pdf", []byte("%PDF"), files.ContentType("application/pdf"))
	if err != nil {
		t.Fatal(err)
	}
	u, err := e.st.URL(ctx, "plans/machine 1.pdf", "")
	if err != nil || u != o.URL || !strings.HasSuffix(u, "/default/plans/machine%201.pdf") || !strings.HasPrefix(u, e.p.HTTPURL()+"/f/") {
		t.Fatalf("URL = %q, %v (object URL %q)", u, err, o.URL)
	}
	if code, _, h := fetch(t, u, nil); code != http.StatusUnauthorized || h.Get("WWW-Authenticate") == "" {
		t.Errorf("without credentials: %d %v", code, h)
	}
	id, secret := e.inst.Credentials()
	if code, _, _ := fetch(t, u, func(r *http.Request) { r.SetBasicAuth(id, "wrong") }); code != http.StatusUnauthorized {
		t.Errorf("wrong secret: %d", code)
	}
	code, body, h := fetch(t, u, func(r *http.Request) { r.SetBasicAuth(id, secret) })
	if code != http.StatusOK || string(body) != "%PDF" || h.Get("Content-Type") != "application/pdf" || h.Get("Cache-Control") != "private, no-cache" {
		t.Errorf("with the app's credential: %d %q %v", code, body, h)
	}
	versioned, _ := e.st.URL(ctx, "plans/machine 1.pdf", o.ETag)
	if _, _, h := fetch(t, versioned, func(r *http.Request) { r.SetBasicAuth(id, secret) }); !strings.Contains(h.Get("Cache-Control"), "immutable") {
		t.Errorf("versioned: %v", h)
	}
	e.p.AddUser("vera", "vera-token", map[*platformtest.Project]string{e.inst.Device().Project(): "viewer"})
	tok := "vera-token"
	if code, body, _ := fetch(t, u, func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+tok) }); code != http.StatusOK || string(body) != "%PDF" {
		t.Errorf("with a member's token: %d %q", code, body)
	}
	// Re-checked on every request: after a rotation past the grace, the old
	// secret no longer reads.
	e.inst.Rotate()
	e.p.Clock().Advance(16 * time.Minute)
	if code, _, _ := fetch(t, u, func(r *http.Request) { r.SetBasicAuth(id, secret) }); code != http.StatusUnauthorized {
		t.Errorf("stale credential: %d", code)
	}
	id, secret = e.inst.Credentials()
	if code, _, _ := fetch(t, u, func(r *http.Request) { r.SetBasicAuth(id, secret) }); code != http.StatusOK {
		t.Errorf("current credential: %d", code)
	}
	if code, _, _ := fetch(t, strings.Replace(u, "machine%201", "nothing", 1), func(r *http.Request) { r.SetBasicAuth(id, secret) }); code != http.StatusNotFound {
		t.Errorf("missing object: %d", code)
	}
}

// TestShareURL: anyone reads it until it expires on the platform clock.
func TestShareURL(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	data := pattern(3000)
	if _, err := e.st.Put(ctx, "share/me.bin", data); err != nil {
		t.Fatal(err)
	}
	sh, err := e.st.ShareURL(ctx, "share/me.bin")
	if err != nil {
		t.Fatal(err)
	}
	if sh.ExpiresIn != 15*time.Minute || sh.Size != 3000 || sh.ETag == "" {
		t.Errorf("share %+v", sh)
	}
	code, body, h := fetch(t, sh.URL, nil)
	if code != http.StatusOK || !bytes.Equal(body, data) || h.Get("Content-Disposition") != "attachment; filename=me.bin" {
		t.Errorf("share: %d, %d bytes, %v", code, len(body), h)
	}
	// Ranges work.
	req, _ := http.NewRequest(http.MethodGet, sh.URL, nil)
	req.Header.Set("Range", "bytes=10-19")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusPartialContent || !bytes.Equal(part, data[10:20]) {
		t.Errorf("range: %d %v", resp.StatusCode, part)
	}
	// The server clamps the lifetime: 2 hours become the namespace's
	// linkMaxTtl of 15 minutes; 1 second becomes a minute.
	if sh, err := e.st.ShareURL(ctx, "share/me.bin", files.ExpiresIn(2*time.Hour)); err != nil || sh.ExpiresIn != 15*time.Minute {
		t.Errorf("clamped high: %+v, %v", sh, err)
	}
	short, err := e.st.ShareURL(ctx, "share/me.bin", files.ExpiresIn(time.Second))
	if err != nil || short.ExpiresIn != time.Minute {
		t.Errorf("clamped low: %+v, %v", short, err)
	}
	e.p.Clock().Advance(61 * time.Second)
	if code, body, _ := fetch(t, short.URL, nil); code != http.StatusForbidden || !strings.Contains(string(body), "AccessDenied") {
		t.Errorf("expired: %d %s", code, body)
	}
	if code, _, _ := fetch(t, sh.URL, nil); code != http.StatusOK {
		t.Errorf("unexpired: %d", code)
	}
	e.p.Clock().Advance(15 * time.Minute)
	if code, _, _ := fetch(t, sh.URL, nil); code != http.StatusForbidden {
		t.Errorf("expired after 15 minutes: %d", code)
	}
	_, err = e.st.ShareURL(ctx, "share/none.bin")
	mustCode(t, err, files.CodeNoSuchObject)
}

// TestUploadURL: a plain net/http client uploads with the minted headers;
// other headers are refused.
func TestUploadURL(t *testing.T) {
	e := setup(t)
	ctx := ctx(t)
	// 5000 bytes are over the namespace's 4096: refused at once.
	_, err := e.st.UploadURL(ctx, "in/photo.png", files.Namespace("photos"), files.ContentType("image/png"), files.Size(5000))
	mustCode(t, err, files.CodeObjectTooLarge)
	_, err = e.st.UploadURL(ctx, "in/photo.txt", files.Namespace("photos"), files.ContentType("text/plain"))
	mustCode(t, err, files.CodeContentTypeNotAllowed)
	data := pattern(4000)
	up, err := e.st.UploadURL(ctx, "in/photo.png", files.Namespace("photos"), files.ContentType("image/png"), files.Size(4000))
	if err != nil {
		t.Fatal(err)
	}
	if up.Method != http.MethodPut || up.Headers["Content-Type"] != "image/png" || up.ExpiresIn != time.Hour || up.MaxBytes != 4000 {
		t.Errorf("upload %+v", up)
	}
	put := func(ct string, body []byte) (int, string) {
		req, err := http.NewRequest(up.Method, up.URL, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range up.Headers {
			req.Header.Set(k, v)
		}
		if ct != "" {
			req.Header.Set("Content-Type", ct)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := put("image/jpeg", data); code != http.StatusForbidden || !strings.Contains(body, "SignatureDoesNotMatch") {
		t.Errorf("other content type: %d %s", code, body)
	}
	if code, body := put("", pattern(4001)); code != http.StatusBadRequest || !strings.Contains(body, "EntityTooLarge") {
		t.Errorf("too large: %d %s", code, body)
	}
	if code, body := put("", data); code != http.StatusOK {
		t.Fatalf("upload: %d %s", code, body)
	}
	got, ok := e.p.FileContent(e.inst.Realm(), "photos", "in/photo.png")
	if !ok || !bytes.Equal(got, data) {
		t.Errorf("stored %d bytes, %v", len(got), ok)
	}
	o, err := e.st.Stat(ctx, "in/photo.png", files.Namespace("photos"))
	if err != nil || o.ContentType != "image/png" || o.Size != 4000 {
		t.Errorf("Stat = %+v, %v", o, err)
	}
	// The URL takes further uploads until it expires, each replacing the
	// object: the last one wins.
	for _, body := range [][]byte{bytes.Repeat([]byte("b"), 4000), []byte("smaller")} {
		if code, msg := put("", body); code != http.StatusOK {
			t.Fatalf("upload again: %d %s", code, msg)
		}
		if got, _ := e.p.FileContent(e.inst.Realm(), "photos", "in/photo.png"); !bytes.Equal(got, body) {
			t.Errorf("after another upload: %d bytes stored, want %d", len(got), len(body))
		}
	}
	e.p.Clock().Advance(61 * time.Minute)
	if code, _ := put("", data); code != http.StatusForbidden {
		t.Errorf("expired upload URL: %d", code)
	}
	if got, _ := e.p.FileContent(e.inst.Realm(), "photos", "in/photo.png"); string(got) != "smaller" {
		t.Errorf("an expired URL changed the object: %q", got)
	}
}
