// Package versiontest checks, from a command's own test, that the command
// prints the version the release build stamps into it.
package versiontest

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// Stamp is the version CheckStamped stamps.
const Stamp = "v9.8.7-stamped"

// CheckStamped builds the command in the test's folder as scripts/release
// does (-trimpath, -ldflags -X main.version=Stamp), runs it with -version
// and fails t unless it prints "name Stamp" and a newline.
func CheckStamped(t *testing.T, name string) {
	t.Helper()
	bin := filepath.Join(t.TempDir(), name)
	build := exec.Command("go", "build", "-trimpath", "-ldflags", "-X main.version="+Stamp, "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "-version").Output()
	if err != nil {
		t.Fatalf("%s -version: %v", name, err)
	}
	if got, want := string(out), name+" "+Stamp+"\n"; got != want {
		t.Errorf("%s -version printed %q, want %q", name, got, want)
	}
}
