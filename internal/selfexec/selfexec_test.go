package selfexec_test

import (
	"os"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/selfexec"
)

const childVar = "SELFEXEC_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childVar) != "" {
		os.Stdout.WriteString("child " + strings.Join(os.Args[1:], " ") + "\n")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestCommand: the child is this test binary, given the arguments.
func TestCommand(t *testing.T) {
	cmd := selfexec.Command("-test.run=^$", "x")
	cmd.Env = append(os.Environ(), childVar+"=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(selfexec.Explain(err))
	}
	if got, want := string(out), "child -test.run=^$ x\n"; got != want {
		t.Errorf("the child said %q, want %q", got, want)
	}
}

// TestCommandThroughEmulator: with EnvVar set, the emulator is the
// program and the test binary its first argument.
func TestCommandThroughEmulator(t *testing.T) {
	t.Setenv(selfexec.EnvVar, "qemu-test-emulator")
	cmd := selfexec.Command("-test.run=^$")
	want := []string{"qemu-test-emulator", os.Args[0], "-test.run=^$"}
	if strings.Join(cmd.Args, "\x00") != strings.Join(want, "\x00") {
		t.Errorf("args %q, want %q", cmd.Args, want)
	}
}
