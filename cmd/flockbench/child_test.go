package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/internal/childproc"
)

func TestChildLogsExplain(t *testing.T) {
	base := errors.New("serve1 floor: driver: broken pipe")
	var logs childLogs
	if err := logs.explain(base); err != base {
		t.Errorf("without logs: %v, want the error as it was", err)
	}
	flockd, quiet := &childproc.Tail{Max: 1 << 10}, &childproc.Tail{Max: 1 << 10}
	for i := range 20 {
		fmt.Fprintf(flockd, "line %d\n", i)
	}
	logs.add("flockd", flockd)
	logs.add("driver", quiet)
	err := logs.explain(base)
	if !errors.Is(err, base) {
		t.Errorf("%v does not wrap the run's error", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "flockd's log (its end):\n  line 5\n") || !strings.HasSuffix(msg, "\n  line 19") {
		t.Errorf("the last %d lines of flockd's log missing from:\n%s", logLines, msg)
	}
	if strings.Contains(msg, "line 4\n") || strings.Contains(msg, "driver's log") {
		t.Errorf("more than the last lines, or an empty log, in:\n%s", msg)
	}
}
