package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/version/versiontest"
)

// TestVersionStamped: flockgen built as the release build builds it, with
// its version stamped (-ldflags -X main.version=…), prints that version
// for -version.
func TestVersionStamped(t *testing.T) {
	versiontest.CheckStamped(t, "flockgen")
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
