package platformtest

import (
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// TestOrphansKeptUntilRecordsKnownWhole: content no record names is
// removed at a start only when files.db is known to hold its last commit
// (COMMITS recorded it): in a folder without COMMITS (written before it
// existed) the start keeps it and says so, and the next start, with
// files.db on record, removes it.
func TestOrphansKeptUntilRecordsKnownWhole(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	w := openKeptWorld(t, dir, "")
	w.p.StoreFile(w.in.Realm(), "default", "a.txt", []byte("hello"), "text/plain")
	w.p.Close()
	orphan := filepath.Join(dir, "files", "ab", "ab"+strings.Repeat("0", 30))
	if err := os.MkdirAll(filepath.Dir(orphan), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(orphan, []byte("no record"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, datadir.CommitsFile)); err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{}
	p := New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	p.Close()
	if _, err := os.Stat(orphan); err != nil || !strings.Contains(logs.String(), "content no record names kept") {
		t.Fatalf("first start: the orphan %v; log:\n%s", err, logs)
	}
	logs = &syncBuffer{}
	p = New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	p.Close()
	if _, err := os.Stat(orphan); err == nil || !strings.Contains(logs.String(), "blobs=1") {
		t.Errorf("second start: the orphan is still there (%v); log:\n%s", err, logs)
	}
}
