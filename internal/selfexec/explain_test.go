package selfexec_test

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/flockgo/ironflock/internal/selfexec"
)

// TestExplainExecFormat: an "exec format error" gets the variable to set
// and the command line to run, and stays an ENOEXEC.
func TestExplainExecFormat(t *testing.T) {
	cause := &fs.PathError{Op: "fork/exec", Path: "/tmp/go-build1/client.test", Err: syscall.ENOEXEC}
	err := selfexec.Explain(cause)
	if !errors.Is(err, syscall.ENOEXEC) {
		t.Errorf("Explain(%v) = %v, which no longer wraps ENOEXEC", cause, err)
	}
	msg := err.Error()
	for _, want := range []string{cause.Error(), "IRONFLOCK_TEST_EXEC", selfexec.ExampleRun,
		"IRONFLOCK_TEST_EXEC=qemu-arm-static GOARCH=arm go test -exec qemu-arm-static ./client/..."} {
		if !strings.Contains(msg, want) {
			t.Errorf("Explain's message lacks %q:\n%s", want, msg)
		}
	}
}

// TestExplainRealExecFormat: starting a file the kernel cannot run (here
// an executable of bytes that are no program, as a foreign binary is to
// it) fails with the explanation.
func TestExplainRealExecFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "foreign.test")
	if err := os.WriteFile(path, []byte("\x7fELF not for this machine\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := selfexec.Explain(exec.Command(path).Start())
	if err == nil {
		t.Fatal("a file of no program started")
	}
	if !errors.Is(err, syscall.ENOEXEC) || !strings.Contains(err.Error(), selfexec.EnvVar) {
		t.Errorf("the start failed with %v, want an exec format error naming %s", err, selfexec.EnvVar)
	}
}

// TestExplainOtherErrors: other errors and nil pass unchanged.
func TestExplainOtherErrors(t *testing.T) {
	if err := selfexec.Explain(nil); err != nil {
		t.Errorf("Explain(nil) = %v", err)
	}
	cause := &fs.PathError{Op: "fork/exec", Path: "/nowhere", Err: syscall.ENOENT}
	if err := selfexec.Explain(cause); err != cause {
		t.Errorf("Explain(%v) = %v, want it unchanged", cause, err)
	}
}
