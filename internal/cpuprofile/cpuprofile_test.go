package cpuprofile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStart: a profile started and stopped leaves a non-empty file; a
// path that cannot be created is refused naming it.
func TestStart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.pprof")
	stop, err := Start(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Errorf("profile file: %v, %v", fi, err)
	}
	bad := filepath.Join(t.TempDir(), "missing", "cpu.pprof")
	if _, err := Start(bad); err == nil || !strings.Contains(err.Error(), "missing") {
		t.Errorf("Start(%s) = %v, want an error naming the path", bad, err)
	}
}
