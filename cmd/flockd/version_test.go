package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/version/versiontest"
)

// TestVersionStamped: flockd built as the release build builds it, with
// its version stamped (-ldflags -X main.version=…), prints that version
// for -version.
func TestVersionStamped(t *testing.T) {
	versiontest.CheckStamped(t, "flockd")
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
