package platformtest

import (
	"path/filepath"
	"testing"
)

// fileStore is where the file service keeps objects in the behaviour
// tests of the file service: every test of files_wire_test.go and
// files_http_test.go runs once per entry (eachFileStore).
type fileStore struct {
	name    string
	options func(t *testing.T) []Option
}

// fileStores are in memory, and in a data folder (records in files.db,
// content in the blob folder).
var fileStores = []fileStore{
	{name: "memory", options: func(*testing.T) []Option { return nil }},
	{name: "datadir", options: func(t *testing.T) []Option {
		return []Option{WithDataDir(filepath.Join(t.TempDir(), "data"))}
	}},
}

// eachFileStore runs body as a subtest per entry of fileStores.
func eachFileStore(t *testing.T, body func(t *testing.T, s fileStore)) {
	t.Helper()
	for _, s := range fileStores {
		t.Run("files="+s.name, func(t *testing.T) { body(t, s) })
	}
}
