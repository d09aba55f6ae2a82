package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The flockd the tests run, built once per test binary.
var (
	flockdOnce sync.Once
	flockdDir  string
	flockdBin  string
	flockdErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if flockdDir != "" {
		_ = os.RemoveAll(flockdDir)
	}
	os.Exit(code)
}

// builtFlockd builds cmd/flockd once and returns its path.
func builtFlockd(t *testing.T) string {
	t.Helper()
	flockdOnce.Do(func() {
		if flockdDir, flockdErr = os.MkdirTemp("", "flocksim-test-"); flockdErr != nil {
			return
		}
		flockdBin = filepath.Join(flockdDir, "flockd")
		if out, err := exec.Command("go", "build", "-o", flockdBin, flockdPackage).CombinedOutput(); err != nil {
			flockdErr = err
			t.Logf("%s", out)
		}
	})
	if flockdErr != nil {
		t.Fatalf("build flockd: %v", flockdErr)
	}
	return flockdBin
}
