// Package selfexec starts the running test binary again as a child
// process, for tests that put a router or a victim in a process of its
// own.
//
// Under qemu-user (`go test -exec qemu-arm-static`) the test binary is a
// foreign executable that the kernel cannot start on its own unless
// binfmt_misc knows the emulator, which containers often lack. When the
// environment variable named by EnvVar names an emulator, Command starts
// the binary through it, as go test's -exec did for the parent. Without
// it the start fails with "exec format error"; Explain turns that into a
// message that says which variable to set.
package selfexec

import (
	"os"
	"os/exec"
)

// EnvVar names the emulator to start the test binary through, if any
// (`.ci/run` sets it to qemu-arm-static for its arm run). The variable
// is inherited, so a child's children are started the same way.
const EnvVar = "IRONFLOCK_TEST_EXEC"

// Command returns a command that runs the current test binary with args,
// through the emulator EnvVar names when it is set.
func Command(args ...string) *exec.Cmd {
	if emu := os.Getenv(EnvVar); emu != "" {
		return exec.Command(emu, append([]string{os.Args[0]}, args...)...)
	}
	return exec.Command(os.Args[0], args...)
}
