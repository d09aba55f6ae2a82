package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/flockgen"
	"github.com/flockgo/ironflock/internal/leakcheck"
)

func TestTyped(t *testing.T) {
	leakcheck.Check(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, &out); err != nil {
		t.Fatalf("run: %v\n%s", err, out.String())
	}
	for _, want := range []string{
		"stored    6 readings",
		"realtime  saw 6 new rows",
		"platform  stored vibration_rms 0.5 for the first row",
		"latest    p1 06:40 72 °C, vibration 0.9 mm/s, key secrets.Keep()\nlatest    p2 06:50 75 °C, vibration 1.0 mm/s, key secrets.Keep()",
		"series    06:00 p1 average 63.0 °C\nseries    06:00 p2 average 63.0 °C\nseries    06:30 p1 average 72.0 °C\nseries    06:30 p2 average 72.0 °C",
		"secret    key-p1 matches p1's key: true",
		"files     stored 2026-11-21.txt in namespace reports",
		"agent     press_status(p2) = map[press:p2 temperature:75]",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, out.String())
		}
	}
}

// TestGeneratedFileIsFresh fails when fleet/fleet.go is not what the
// templates give (run go generate ./examples/typed), as flockgen -check
// does in an app's CI.
func TestGeneratedFileIsFresh(t *testing.T) {
	code, err := os.ReadFile(filepath.Join("fleet", "fleet.go"))
	if err != nil {
		t.Fatal(err)
	}
	changes, err := flockgen.Check(flockgen.Config{Dir: ".", Package: "fleet"}, code)
	if err != nil {
		t.Fatal(err)
	}
	if changes != nil {
		t.Errorf("fleet/fleet.go is stale; run go generate ./examples/typed:\n\t%s", strings.Join(changes, "\n\t"))
	}
}
