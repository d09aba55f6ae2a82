// This file tests -cpuprofile's profile file.

package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCPUProfileIsWritten(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cpu.prof")
	stop, err := startCPUProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	stop()
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("no profile written: %v", err)
	}
	if _, err := startCPUProfile(filepath.Join(t.TempDir(), "missing", "cpu.prof")); err == nil {
		t.Error("a profile in a missing directory did not fail")
	}
}
