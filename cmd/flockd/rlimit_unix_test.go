//go:build linux || darwin

package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestFileLimit: at start flockd's soft file limit is its hard one (where
// the system allows it) and the log says how many sessions that allows.
func TestFileLimit(t *testing.T) {
	_, logs := serveInBackground(t, "-no-console")
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	if lim.Cur != lim.Max {
		t.Logf("soft %d, hard %d: this system refuses the hard limit as a soft one", lim.Cur, lim.Max)
	}
	want := "msg=\"file limit\" soft=" + strconv.FormatUint(lim.Cur, 10) + " hard=" + strconv.FormatUint(lim.Max, 10)
	if !strings.Contains(logs.String(), want) {
		t.Fatalf("no %q in the log:\n%s", want, logs)
	}
	sessions := "sessions=" + strconv.FormatInt(max(int64(lim.Cur)-fileReserve, 0), 10)
	if !strings.Contains(logs.String(), sessions) {
		t.Errorf("no %q in the log:\n%s", sessions, logs)
	}
}
