// This file holds the child processes of the tests: the test binary runs
// again (os.Args[0]) with childRole set, and TestMain runs that role
// instead of the tests. Roles: "producer" (chaos_test.go) and "diskfull"
// (open_test.go).

package outbox_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"
)

// The environment variables that select and configure a child's role.
const (
	childRole = "OUTBOX_TEST_CHILD"
	childDir  = "OUTBOX_TEST_DIR"
	childEnv  = "OUTBOX_TEST_ENV"  // the installation's environment, as JSON
	childBase = "OUTBOX_TEST_BASE" // the first row number of a producer
)

func TestMain(m *testing.M) {
	switch os.Getenv(childRole) {
	case "":
		os.Exit(m.Run())
	case "diskfull":
		diskFullChild(os.Getenv(childDir))
	case "producer":
		producerChild(os.Getenv(childDir), os.Getenv(childEnv), os.Getenv(childBase))
	default:
		fail("unknown role %q", os.Getenv(childRole))
	}
	os.Exit(0)
}

// say writes one line to stdout, unbuffered: a line the parent reads was
// written whole before the child could be killed.
func say(format string, args ...any) {
	_, _ = os.Stdout.WriteString(fmt.Sprintf(format, args...) + "\n")
}

// fail ends a child with an error.
func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "child: "+format+"\n", args...)
	os.Exit(2)
}

func ctxBackground() context.Context { return context.Background() }

// signalIgnoreXFSZ keeps a write over the file size limit an error
// (EFBIG) instead of a signal that ends the process.
func signalIgnoreXFSZ() { signal.Ignore(syscall.SIGXFSZ) }

// fmtSscanLast scans the value after the last line starting with prefix.
func fmtSscanLast(text, prefix string, v any) (int, error) {
	lines := strings.Split(text, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if rest, ok := strings.CutPrefix(lines[i], prefix); ok {
			return fmt.Sscan(rest, v)
		}
	}
	return 0, fmt.Errorf("no line starts with %q", prefix)
}
