package platformtest

import (
	"fmt"
	"hash/crc32"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// TestOrphansKeptUntilRecordsKnownWhole: content no record names is
// removed at a start only when files.db is known to hold its last commit
// (COMMITS recorded it): with a COMMITS that has no commit of files.db on
// record (as a power cut may leave it, or a folder written before COMMITS
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
	// COMMITS as the folder's creation wrote it (no commit on record): a
	// power cut can leave it so, for it is synced only when the folder
	// closes.
	head := "flockd data folder commits 0\n"
	slot := make([]byte, 2048)
	copy(slot, fmt.Sprintf("%scrc32c %08x\n", head, crc32.Checksum([]byte(head), crc32.MakeTable(crc32.Castagnoli))))
	if err := os.WriteFile(filepath.Join(dir, datadir.CommitsFile), append(slot, slot...), 0o600); err != nil {
		t.Fatal(err)
	}
	logs := &worldtest.SyncBuffer{}
	p := New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	p.Close()
	if _, err := os.Stat(orphan); err != nil || !strings.Contains(logs.String(), "content no record names kept") {
		t.Fatalf("first start: the orphan %v; log:\n%s", err, logs)
	}
	logs = &worldtest.SyncBuffer{}
	p = New(t, WithDataDir(dir), WithLogger(slog.New(slog.NewTextHandler(logs, nil))))
	p.Close()
	if _, err := os.Stat(orphan); err == nil || !strings.Contains(logs.String(), "blobs=1") {
		t.Errorf("second start: the orphan is still there (%v); log:\n%s", err, logs)
	}
}
