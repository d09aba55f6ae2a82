package main

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest"
)

// TestProfileFlags: -cpuprofile and -memprofile write profiles (gzipped
// protocol buffers, as pprof reads them) once flockd stops; a profile that cannot be created stops flockd
// before it serves.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-memory", "-listen", "127.0.0.1:0", "-cpuprofile", cpu, "-memprofile", mem},
			io.Discard, io.Discard, func(*platformtest.Platform) { cancel() })
	}()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{cpu, mem} {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		z, err := gzip.NewReader(f)
		if err == nil {
			_, err = io.Copy(io.Discard, z)
		}
		f.Close()
		if err != nil {
			t.Errorf("%s: not a profile: %v", path, err)
		}
	}
	err := run(context.Background(), []string{"-memory", "-listen", "127.0.0.1:0", "-cpuprofile", filepath.Join(dir, "missing", "cpu.prof")},
		io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "cpuprofile") {
		t.Errorf("a profile in a missing folder: %v", err)
	}
}
