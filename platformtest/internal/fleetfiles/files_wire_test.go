package fleetfiles_test

import (
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// filesTemplate declares the namespaces of the file service tests.
const filesTemplate = `
data:
  tables: []
files:
  quotaBytes: 2097152
  namespaces:
    - name: default
    - name: photos
      contentTypes: ["image/*", "application/pdf"]
      maxObjectBytes: 2048
`

// filesFixture is a platform with the files template installed on one
// device, and a raw JSON client of it (as a Python or JavaScript app).
type filesFixture struct {
	p  *platformtest.Platform
	in *platformtest.Installation
	worldtest.FilesClient
}

func newFilesFixture(t *testing.T, s worldtest.Store[platformtest.Option], opts ...platformtest.Option) *filesFixture {
	t.Helper()
	leakcheck.Check(t)
	p := platformtest.New(t, append(s.Options(t), opts...)...)
	in := p.Install(p.AddDevice("press"), p.AddApp("plant", filesTemplate), platformtest.Dev)
	return &filesFixture{p: p, in: in, FilesClient: worldtest.FilesClient{C: worldtest.Connect(t, p, in, serialize.JSON)}}
}

func TestFilesEnvelope(t *testing.T) { backends.EachFileStore(t, testFilesEnvelope) }

func testFilesEnvelope(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	put := f.OK(t, wire.FilesPut, map[string]any{"namespace": "", "key": "a/b.txt", "data": worldtest.B64("hello")})
	// put answers the object's metadata (seed), last_modified included.
	want := map[string]any{
		"namespace": "default", "key": "a/b.txt", "size": int64(5), "etag": "5d41402abc4b2a76b9719d911017c592",
		"content_type":    "application/octet-stream",
		"checksum_sha256": "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824",
	}
	lm, _ := put["last_modified"].(string)
	if _, err := time.Parse("2006-01-02T15:04:05.000Z", lm); err != nil {
		t.Errorf("last_modified %q: %v", lm, err)
	}
	if diff := cmp.Diff(want, put, cmpopts.IgnoreMapEntries(func(k string, _ any) bool { return k == "last_modified" })); diff != "" {
		t.Errorf("put (-want +got):\n%s", diff)
	}
	stat := f.OK(t, wire.FilesStat, map[string]any{"key": "a/b.txt"})
	if diff := cmp.Diff(stat, put); diff != "" {
		t.Errorf("put's answer differs from stat's (-stat +put):\n%s", diff)
	}
	get := f.OK(t, wire.FilesGet, map[string]any{"namespace": "default", "key": "a/b.txt"})
	if get["data"] != worldtest.B64("hello") || get["encoding"] != "base64" || get["etag"] != want["etag"] {
		t.Errorf("get %v", get)
	}
	if got := f.OK(t, wire.FilesDelete, map[string]any{"key": "nothing"}); !cmp.Equal(got, map[string]any{"deleted": true}) {
		t.Errorf("delete %v", got)
	}
	cat := f.OK(t, wire.FilesNamespaces, nil)
	for k, v := range map[string]any{
		"inline_max_bytes": int64(6 << 20), "list_max_limit": int64(1000), "quota_bytes": int64(1 << 30),
		"suggested_quota_bytes": int64(2 << 20), "presign_available": true, "presign_max_bytes": int64(5 << 30),
		"public_base_url": f.p.HTTPURL(), "cloud_base_url": "",
	} {
		if !cmp.Equal(cat[k], v) {
			t.Errorf("catalog %s = %v, want %v", k, cat[k], v)
		}
	}
	nss, _ := cat["namespaces"].([]any)
	if len(nss) != 2 || !cmp.Equal(nss[1], map[string]any{"name": "photos", "description": "", "private": false,
		"content_types": []any{"image/*", "application/pdf"}, "max_object_bytes": int64(2048)}) {
		t.Errorf("namespaces %v", nss)
	}
	f.Refused(t, wire.FilesStat, map[string]any{"namespace": "videos", "key": "x"}, wire.FileNoSuchNamespace)
	f.Refused(t, wire.FilesStat, map[string]any{"key": "missing"}, wire.FileNoSuchObject)
	if env := worldtest.Call(t, f.C, wire.FilesStat, "not an object", nil, false).OK(t, "stat").Args[0].(map[string]any); env["code"] != wire.FileInternal {
		t.Errorf("a payload that is not an object: %v", env)
	}
}

func TestFilesPutRules(t *testing.T) { backends.EachFileStore(t, testFilesPutRules) }

func testFilesPutRules(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	f.p.SetFilesInlineMaxBytes(10)
	f.OK(t, wire.FilesPut, map[string]any{"key": "crlf", "data": "aGVs\r\nbG8="}) // CR LF stripped
	f.OK(t, wire.FilesPut, map[string]any{"key": "empty"})
	f.Refused(t, wire.FilesPut, map[string]any{"key": "bad", "data": "aGVsbG8"}, wire.FileInternal) // not padded: strict
	f.Refused(t, wire.FilesPut, map[string]any{"key": "big", "data": worldtest.B64("01234567890")}, wire.FileTooLarge)
	f.Refused(t, wire.FilesPut, map[string]any{"key": "huge", "data": strings.Repeat("A", 100)}, wire.FileTooLarge)
	f.p.SetFilesInlineMaxBytes(4096)
	f.Refused(t, wire.FilesPut, map[string]any{"namespace": "photos", "key": "x.png", "content_type": "image/png", "data": worldtest.B64(strings.Repeat("x", 3000))}, wire.FileObjectTooLarge)
	f.Refused(t, wire.FilesPut, map[string]any{"namespace": "photos", "key": "x.txt", "content_type": "text/plain", "data": worldtest.B64("x")}, wire.FileContentTypeNotAllowed)
	f.OK(t, wire.FilesPut, map[string]any{"namespace": "photos", "key": "x.pdf", "content_type": "application/pdf", "data": worldtest.B64("x")})
	// A content type is one header line: control characters are refused,
	// in a namespace that takes any type too, for puts and upload URLs.
	for _, ct := range []string{"text/plain\r\nX-Injected: 1", "text/plain\n", "text/\x00plain", strings.Repeat("a", 256)} {
		f.Refused(t, wire.FilesPut, map[string]any{"key": "ct", "content_type": ct, "data": worldtest.B64("x")}, wire.FileContentTypeNotAllowed)
		f.Refused(t, wire.FilesWriteURL, map[string]any{"key": "ct", "content_type": ct}, wire.FileContentTypeNotAllowed)
	}
	for _, key := range []string{"", "/a", "a//b", "_sys/x", "a?b", "a/../b"} {
		f.Refused(t, wire.FilesPut, map[string]any{"key": key, "data": worldtest.B64("x")}, wire.FileInvalidKey)
	}
	// Keys are kept byte for byte: a decomposed "é" is another object than
	// the composed one (the real service normalises to NFC).
	f.OK(t, wire.FilesPut, map[string]any{"key": "caf\u00e9", "data": worldtest.B64("1")})
	f.OK(t, wire.FilesPut, map[string]any{"key": "cafe\u0301", "data": worldtest.B64("2")})
	if n := len(f.p.FileObjects(f.in.Realm())); n != 5 {
		t.Errorf("%d objects, want 5", n)
	}
	// Copying onto itself is refused; a copy counts against the quota.
	f.Refused(t, wire.FilesCopy, map[string]any{"key": "crlf", "to": "crlf"}, wire.FileInvalidKey)
	f.p.SetFilesQuota(f.in.Realm(), 8)
	f.Refused(t, wire.FilesCopy, map[string]any{"key": "crlf", "to": "copy"}, wire.FileQuotaExceeded)
	// Replacing an object counts only the difference.
	f.OK(t, wire.FilesPut, map[string]any{"key": "crlf", "data": worldtest.B64("hi")})
}

func TestFilesRanges(t *testing.T) { backends.EachFileStore(t, testFilesRanges) }

func testFilesRanges(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	f.p.SetFilesInlineMaxBytes(4)
	f.p.StoreFile(f.in.Realm(), "default", "ten", []byte("0123456789"), "")
	f.Refused(t, wire.FilesGet, map[string]any{"key": "ten"}, wire.FileTooLarge)
	for _, tc := range []struct {
		offset, length any
		data           string
		n              int64
	}{
		{0, 4, "0123", 4},
		{2, 100, "2345", 4}, // clamped to the inline limit
		{8, nil, "89", 2},   // to the end
		{10, 1, "", 0},      // at the end: nothing
	} {
		req := map[string]any{"key": "ten", "offset": tc.offset}
		if tc.length != nil {
			req["length"] = tc.length
		}
		got := f.OK(t, wire.FilesGet, req)
		if got["data"] != worldtest.B64(tc.data) || got["length"] != tc.n || got["size"] != int64(10) {
			t.Errorf("range %v: %v", req, got)
		}
	}
	f.Refused(t, wire.FilesGet, map[string]any{"key": "ten", "offset": 11}, wire.FileInvalidRange)
	f.Refused(t, wire.FilesGet, map[string]any{"key": "ten", "offset": -1}, wire.FileInvalidRange)
	f.Refused(t, wire.FilesGet, map[string]any{"key": "ten", "offset": 0, "length": 0}, wire.FileInvalidRange)
}

func TestFilesListRules(t *testing.T) { backends.EachFileStore(t, testFilesListRules) }

func testFilesListRules(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	for i := range 5 {
		f.p.StoreFile(f.in.Realm(), "default", "k"+string(rune('a'+i)), []byte("x"), "")
	}
	page := f.OK(t, wire.FilesList, map[string]any{"limit": 0})
	if objs, _ := page["objects"].([]any); len(objs) != 5 || page["is_truncated"] != false || page["cursor"] != "" {
		t.Errorf("limit 0: %v", page)
	}
	page = f.OK(t, wire.FilesList, map[string]any{"limit": 2})
	if page["is_truncated"] != true || page["cursor"] != base64.RawURLEncoding.EncodeToString([]byte("kb")) {
		t.Errorf("page 1: %v", page)
	}
	page = f.OK(t, wire.FilesList, map[string]any{"limit": 2, "cursor": page["cursor"]})
	if objs, _ := page["objects"].([]any); len(objs) != 2 || objs[0].(map[string]any)["key"] != "kc" {
		t.Errorf("page 2: %v", page)
	}
	f.Refused(t, wire.FilesList, map[string]any{"cursor": "#"}, wire.FileInternal)
	f.Refused(t, wire.FilesList, map[string]any{"prefix": "/"}, wire.FileInvalidKey)
	f.Refused(t, wire.FilesList, map[string]any{"namespace": "*"}, wire.FileNotSupported)
	f.Refused(t, wire.FilesList, map[string]any{"delimiter": 5}, wire.FileInternal)
}

func TestFilesPresignRules(t *testing.T) { backends.EachFileStore(t, testFilesPresignRules) }

func testFilesPresignRules(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	f.p.StoreFile(f.in.Realm(), "default", "x", []byte("x"), "")
	u := f.OK(t, wire.FilesReadURL, map[string]any{"key": "x", "expires_in": 30})
	if u["expires_in"] != int64(60) || u["method"] != "GET" || u["size"] != int64(1) {
		t.Errorf("read URL %v", u)
	}
	w := f.OK(t, wire.FilesWriteURL, map[string]any{"key": "y", "expires_in": 99999})
	if w["expires_in"] != int64(3600) || w["method"] != "PUT" || w["max_bytes"] != int64(100<<20) ||
		!cmp.Equal(w["headers"], map[string]any{"Content-Type": "application/octet-stream"}) {
		t.Errorf("write URL %v", w)
	}
	f.Refused(t, wire.FilesReadURL, map[string]any{"key": "missing"}, wire.FileNoSuchObject)
	f.Refused(t, wire.FilesWriteURL, map[string]any{"key": "y", "size": int64(5<<30 + 1)}, wire.FileTooLarge)
	f.Refused(t, wire.FilesWriteURL, map[string]any{"key": "y", "size": int64(3 << 30)}, wire.FileObjectTooLarge)
	f.p.SetFilesQuota(f.in.Realm(), 10)
	f.Refused(t, wire.FilesWriteURL, map[string]any{"key": "y", "size": 10}, wire.FileQuotaExceeded)
	f.OK(t, wire.FilesWriteURL, map[string]any{"key": "x", "size": 10}) // replaces x's byte
	f.p.SetFilesPresign(false)
	f.Refused(t, wire.FilesReadURL, map[string]any{"key": "x"}, wire.FileNotSupported)
	f.Refused(t, wire.FilesWriteURL, map[string]any{"key": "x"}, wire.FileNotSupported)
	if cat := f.OK(t, wire.FilesNamespaces, nil); cat["presign_available"] != false {
		t.Errorf("catalog %v", cat)
	}
}

// TestFilesSurviveRestart: objects live in the platform, not in the
// realm's session.
func TestFilesSurviveRestart(t *testing.T) { backends.EachFileStore(t, testFilesSurviveRestart) }

func testFilesSurviveRestart(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	f.OK(t, wire.FilesPut, map[string]any{"key": "keep", "data": worldtest.B64("kept")})
	if err := f.p.Restart(); err != nil {
		t.Fatal(err)
	}
	c := worldtest.Connect(t, f.p, f.in, serialize.MSGPACK)
	r := worldtest.Call(t, c, wire.FilesGet, map[string]any{"key": "keep"}, nil, false).OK(t, "get")
	if env := r.Args[0].(map[string]any); env["payload"].(map[string]any)["data"] != worldtest.B64("kept") {
		t.Errorf("after restart: %v", env)
	}
}

// TestWithoutFileService: no procedures, no HTTP routes.
func TestWithoutFileService(t *testing.T) { backends.EachFileStore(t, testWithoutFileService) }

func testWithoutFileService(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s, platformtest.WithoutFileService())
	worldtest.Call(t, f.C, wire.FilesNamespaces, nil, nil, false).Refused(t, "catalog", wire.ErrNoSuchProcedure)
}

// TestFilesDefaultNamespace: every app has the namespace "default" beside
// the declared ones (seed rule); declaring it only sets its options.
func TestFilesDefaultNamespace(t *testing.T) {
	leakcheck.Check(t)
	p := platformtest.New(t)
	dev := p.AddDevice("press")
	for _, tc := range []struct {
		app, files string
		want       []string
	}{
		{"bare", "", []string{"default"}},
		{"declared", "files:\n  namespaces:\n    - {name: photos, contentTypes: [\"image/*\"]}\n    - {name: zz}\n", []string{"default", "photos", "zz"}},
		{"options", "files:\n  namespaces:\n    - {name: default, contentTypes: [\"text/*\"], maxObjectBytes: 4}\n", []string{"default"}},
	} {
		t.Run(tc.app, func(t *testing.T) {
			in := p.Install(dev, p.AddApp(tc.app, "data:\n  tables: []\n"+tc.files), platformtest.Dev)
			f := &filesFixture{p: p, in: in, FilesClient: worldtest.FilesClient{C: worldtest.Connect(t, p, in, serialize.MSGPACK)}}
			var names []string
			for _, ns := range f.OK(t, wire.FilesNamespaces, nil)["namespaces"].([]any) {
				names = append(names, ns.(map[string]any)["name"].(string))
			}
			if diff := cmp.Diff(tc.want, names); diff != "" {
				t.Errorf("catalog namespaces (-want +got):\n%s", diff)
			}
			usage := f.OK(t, wire.FilesUsage, map[string]any{"detail": true})["per_namespace"].(map[string]any)
			if len(usage) != len(tc.want) || usage["default"] != int64(0) {
				t.Errorf("usage per namespace %v", usage)
			}
			put := map[string]any{"key": "a.txt", "content_type": "text/plain", "data": worldtest.B64("hello")}
			if tc.app == "options" {
				f.Refused(t, wire.FilesPut, put, wire.FileObjectTooLarge)
				put["data"] = worldtest.B64("hi")
				f.Refused(t, wire.FilesPut, map[string]any{"key": "a.bin", "data": worldtest.B64("hi")}, wire.FileContentTypeNotAllowed)
			}
			f.OK(t, wire.FilesPut, put)
			if objs := p.FileObjects(in.Realm()); len(objs) != 1 || objs[0].Namespace != "default" {
				t.Errorf("objects %v", objs)
			}
		})
	}
}

// TestFilesKeyNotUTF8: keys arrive as msgpack strings of any bytes (here
// from a raw msgpack client, not the SDK, which refuses them itself); one
// that is not valid UTF-8 is refused with INVALID_KEY wherever a key or a
// prefix is read, and nothing is stored under it.
func TestFilesKeyNotUTF8(t *testing.T) { backends.EachFileStore(t, testFilesKeyNotUTF8) }

func testFilesKeyNotUTF8(t *testing.T, s worldtest.Store[platformtest.Option]) {
	f := newFilesFixture(t, s)
	f.C = worldtest.Connect(t, f.p, f.in, serialize.MSGPACK)
	f.p.StoreFile(f.in.Realm(), "default", "ok", []byte("x"), "")
	for _, tc := range []struct {
		uri     string
		payload map[string]any
	}{
		{wire.FilesPut, map[string]any{"key": "a\xffb", "data": worldtest.B64("1")}},
		{wire.FilesPut, map[string]any{"key": "a\xfeb", "data": worldtest.B64("2")}},
		{wire.FilesStat, map[string]any{"key": "a\xffb"}},
		{wire.FilesGet, map[string]any{"key": "a\xffb"}},
		{wire.FilesDelete, map[string]any{"key": "a\xffb"}},
		{wire.FilesCopy, map[string]any{"key": "ok", "to": "a\xffb"}},
		{wire.FilesList, map[string]any{"prefix": "a\xff"}},
		{wire.FilesReadURL, map[string]any{"key": "a\xffb"}},
		{wire.FilesWriteURL, map[string]any{"key": "a\xffb"}},
	} {
		if reason := f.Refused(t, tc.uri, tc.payload, wire.FileInvalidKey); !strings.Contains(reason, "UTF-8") {
			t.Errorf("%s %q: reason %q does not say why", tc.uri, tc.payload, reason)
		}
	}
	if objs := f.p.FileObjects(f.in.Realm()); len(objs) != 1 {
		t.Errorf("objects %v", objs)
	}
}

// backends are the facade's options of each backend for worldtest's
// list of file stores.
var backends = worldtest.Backends[platformtest.Option]{DataDir: platformtest.WithDataDir}
