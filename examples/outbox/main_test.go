package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestOutboxExample(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out, t.TempDir(), false); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"online    10 readings written, 10 delivered",
		"platform  down",
		"offline   30 readings written; queue: 30 pending (",
		"platform  up",
		"drained   0 pending, 50 delivered this run, 0 dead-lettered",
		"table     readings holds 50 rows",
		"done",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}
