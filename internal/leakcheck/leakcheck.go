// Package leakcheck fails a test when goroutines started during it are still
// running at its end. It compares goroutine stacks taken before and after,
// ignoring goroutines of the runtime and the testing package.
package leakcheck

import (
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"
)

// Check records the goroutines running now and registers a cleanup that
// fails tb if new goroutines are still running once the test and its other
// cleanups are done. It waits up to 20 seconds for them to end, since
// closing connections and stopping timers take a moment, and longer on a
// loaded machine.
//
// Call it first in a test so its cleanup runs last.
func Check(tb testing.TB) {
	tb.Helper()
	before := goroutineIDs()
	tb.Cleanup(func() {
		deadline := time.Now().Add(20 * time.Second)
		var leaked []string
		for {
			leaked = leaked[:0]
			for id, stack := range goroutines() {
				if _, ok := before[id]; ok || ignorable(stack) {
					continue
				}
				leaked = append(leaked, stack)
			}
			if len(leaked) == 0 || time.Now().After(deadline) {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if len(leaked) > 0 {
			sort.Strings(leaked)
			tb.Errorf("%d goroutine(s) leaked:\n\n%s", len(leaked), strings.Join(leaked, "\n\n"))
		}
	})
}

func goroutineIDs() map[string]struct{} {
	ids := map[string]struct{}{}
	for id := range goroutines() {
		ids[id] = struct{}{}
	}
	return ids
}

// goroutines returns the stack of every goroutine keyed by its header line
// prefix "goroutine N".
func goroutines() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		header, _, _ := strings.Cut(g, "\n")
		fields := strings.Fields(header)
		if len(fields) < 2 {
			continue
		}
		out[fields[0]+" "+fields[1]] = g
	}
	return out
}

func ignorable(stack string) bool {
	for _, s := range []string{
		"testing.(*T).Run(",
		"testing.(*M).",
		"testing.tRunner(",
		"testing.runTests",
		"leakcheck.goroutines(",
		"created by os/signal.Notify",
		"os/signal.signal_recv",
		"runtime.ensureSigM",
		"created by testing.(*T).Run",
	} {
		if strings.Contains(stack, s) && !strings.Contains(stack, "flockgo/ironflock") {
			return true
		}
	}
	return false
}
