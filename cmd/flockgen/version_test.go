package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionStamped: flockgen built as the release build builds it, with
// its version stamped (-ldflags -X main.version=…), prints that version
// for -version.
func TestVersionStamped(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "flockgen")
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version=v9.8.7-stamped", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version").Output()
	if err != nil {
		t.Fatalf("flockgen -version: %v", err)
	}
	if got, want := string(out), "flockgen v9.8.7-stamped\n"; got != want {
		t.Errorf("flockgen -version printed %q, want %q", got, want)
	}
}

// TestVersionWithoutOutput: -version needs no -o.
func TestVersionWithoutOutput(t *testing.T) {
	var out strings.Builder
	if err := run(context.Background(), []string{"-version"}, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "flockgen ") {
		t.Errorf("flockgen -version printed %q", out.String())
	}
}
