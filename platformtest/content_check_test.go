package platformtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// flipBlob flips one bit in the middle of the blob of dir holding size
// bytes and returns its path relative to dir.
func flipBlob(t *testing.T, dir string, size int64) string {
	t.Helper()
	for _, path := range blobFiles(t, dir) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) != size {
			continue
		}
		b[len(b)/2] ^= 0x10
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, path)
		return rel
	}
	t.Fatalf("no blob of %d bytes", size)
	return ""
}

// TestDamagedContentNotServed: content whose bytes no longer match the
// SHA-256 of its record is never served: a start serves the folder (it
// checks sizes), but a read through the router, Content, a share URL
// (whole: 500 before any byte for a small object, the answer cut for a
// large one; a range: 500) fails naming the blob; flockd check refuses
// the folder naming it; untouched objects are served as before.
func TestDamagedContentNotServed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	w := openKeptWorld(t, dir, "")
	realm := w.in.Realm()
	small, big, fine := []byte("hello"), bytes.Repeat([]byte("0123456789abcdef"), 32<<10), []byte("fine")
	w.p.StoreFile(realm, "default", "small.txt", small, "text/plain")
	w.p.StoreFile(realm, "default", "big.bin", big, "")
	w.p.StoreFile(realm, "default", "fine.txt", fine, "text/plain")
	w.p.Close()
	smallBlob := flipBlob(t, dir, int64(len(small)))
	bigBlob := flipBlob(t, dir, int64(len(big)))

	_, err := CheckDataDir(dir)
	if !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), "does not match its record's") ||
		(!strings.Contains(err.Error(), smallBlob) && !strings.Contains(err.Error(), bigBlob)) {
		t.Errorf("check: %v", err)
	}

	w = openKeptWorld(t, dir, "")
	bucket := w.p.fileBucket(realm)
	for key, blob := range map[string]string{"small.txt": smallBlob, "big.bin": bigBlob} {
		if data, _, err := bucket.Content("default", key); !errors.Is(err, datadir.ErrDamaged) || !strings.Contains(err.Error(), blob) || data != nil {
			t.Errorf("Content of %s: %d bytes, %v", key, len(data), err)
		}
	}
	if data, ok, err := bucket.Content("default", "fine.txt"); err != nil || !ok || !bytes.Equal(data, fine) {
		t.Errorf("Content of fine.txt: %q, %v", data, err)
	}
	get := worldtest.Call(t, w.c, wire.FilesGet, map[string]any{"key": "small.txt"}, nil, false)
	env, _ := get.Args[0].(map[string]any)
	if get.ErrURI == "" && (env == nil || env["success"] == true) {
		t.Errorf("files.read.get of the damaged object: %v", get.Args)
	} else if !strings.Contains(fmt.Sprint(get.Args, get.ErrArgs, get.ErrKw), "does not match") {
		t.Errorf("files.read.get of the damaged object does not say why: %v", fmt.Sprint(get.Args, get.ErrArgs, get.ErrKw))
	}
	ranged := worldtest.Call(t, w.c, wire.FilesGet, map[string]any{"key": "big.bin", "offset": 100, "length": 10}, nil, false)
	if env, _ := ranged.Args[0].(map[string]any); ranged.ErrURI == "" && (env == nil || env["success"] == true) {
		t.Errorf("a ranged files.read.get of the damaged object: %v", ranged.Args)
	}

	url := func(key string) string {
		return w.files(t, wire.FilesReadURL, map[string]any{"key": key})["url"].(string)
	}
	if code, body, _ := worldtest.Do(t, http.MethodGet, url("small.txt"), nil, 0, nil); code != http.StatusInternalServerError || !strings.Contains(body, smallBlob) {
		t.Errorf("GET of the small damaged object: %d %q", code, body)
	}
	req, _ := http.NewRequest(http.MethodGet, url("big.bin"), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err == nil || len(body) >= len(big) {
		t.Errorf("GET of the large damaged object: %d, %d of %d bytes, %v: want the answer cut", resp.StatusCode, len(body), len(big), err)
	}
	code, body2, _ := worldtest.Do(t, http.MethodGet, url("big.bin"), nil, 0, map[string]string{"Range": "bytes=1000-1999"})
	if code != http.StatusInternalServerError || !strings.Contains(body2, bigBlob) {
		t.Errorf("ranged GET of the large damaged object: %d %q", code, body2)
	}
	if code, body, _ := worldtest.Do(t, http.MethodGet, url("fine.txt"), nil, 0, nil); code != http.StatusOK || body != string(fine) {
		t.Errorf("GET of an untouched object: %d %q", code, body)
	}
}
