// This file holds Explain, which turns the kernel's refusal to start a
// foreign test binary into an error that says how to run it.

package selfexec

import (
	"errors"
	"fmt"
	"syscall"
)

// ExampleRun is the command line docs/testing.md shows for the device
// packages' tests under qemu-user; Explain quotes it.
const ExampleRun = EnvVar + "=qemu-arm-static GOARCH=arm go test -exec qemu-arm-static ./client/..."

// Explain returns err, from starting a command of Command, with what to do
// when the kernel refused the binary with "exec format error" (ENOEXEC):
// the test binary was built for another architecture and runs under an
// emulator (go test -exec), which the child needs too, through EnvVar.
// Other errors, and nil, are returned as they are. The result still wraps
// err (errors.Is(result, syscall.ENOEXEC) holds).
func Explain(err error) error {
	if err == nil || !errors.Is(err, syscall.ENOEXEC) {
		return err
	}
	return fmt.Errorf("start the test binary again as a child process: %w: it was built for another architecture "+
		"and this machine cannot run it without an emulator; go test -exec starts the parent through one, "+
		"the child needs %s set to it too, for example: %s", err, EnvVar, ExampleRun)
}
