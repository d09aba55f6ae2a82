package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionStamped: flockd built as the release build builds it, with
// its version stamped (-ldflags -X main.version=…), prints that version
// for -version.
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "flockd")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=v9.8.7-stamped", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version").Output()
	if err != nil {
		t.Fatalf("flockd -version: %v", err)
	}
	if got, want := string(out), "flockd v9.8.7-stamped\n"; got != want {
		t.Errorf("flockd -version printed %q, want %q", got, want)
	}
}

// TestVersionUnstamped: without a stamp -version prints a devel version
// (this test binary records no module version) and serves nothing.
func TestVersionUnstamped(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"-version", "-listen", "256.0.0.1:1"}, &out, io.Discard, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "flockd devel") && !strings.HasPrefix(out.String(), "flockd v") {
		t.Errorf("flockd -version printed %q", out.String())
	}
}
