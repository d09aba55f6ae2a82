package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestRun: a short run passes every request through its stages and
// reports them; bad flags are refused naming the bound.
func TestRun(t *testing.T) {
	for _, args := range [][]string{
		{"-sessions", "50", "-stages", "3", "-rate", "2000", "-live", "1", "-d", "200ms"},
		{"-sessions", "50", "-stages", "2", "-pool", "4", "-rate", "2000", "-live", "1", "-d", "200ms"},
	} {
		var out strings.Builder
		if err := run(args, &out); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		m := regexp.MustCompile(`: (\d+) requests, p50 `).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("%v: report %q", args, out.String())
		}
		if n, _ := strconv.Atoi(m[1]); n < 200 {
			t.Errorf("%v: %d requests in 200 ms at 2000/s", args, n)
		}
	}
	if err := run([]string{"-stages", "0"}, &strings.Builder{}); err == nil || !strings.Contains(err.Error(), "-stages") {
		t.Errorf("-stages 0: %v", err)
	}
}
