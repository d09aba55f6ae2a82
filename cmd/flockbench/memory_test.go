package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/internal/leakcheck"
	"github.com/flockgo/ironflock/platformtest"
)

// testProgram stands in for a footprint program in a child process (the
// test binary with testRoleVar "program"): it prints ready and waits for
// the end of its standard input or a signal.
func testProgram(ctx context.Context) error {
	fmt.Println("ready")
	<-ctx.Done()
	return nil
}

func TestResidentMemory(t *testing.T) {
	r, err := residentMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if r.RSS <= 0 || r.Anon <= 0 || r.File <= 0 || r.Peak < r.RSS || r.Anon+r.File > r.RSS+r.RSS/10 {
		t.Errorf("resident memory of this process: %+v", r)
	}
	if _, err := residentMemory(1 << 30); err == nil {
		t.Error("no error for a process that does not exist")
	}
}

// TestMeasureProgram measures a program that prints ready, and ends it.
func TestMeasureProgram(t *testing.T) {
	leakcheck.Check(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(testRoleVar, "program")
	m, err := measureProgram(context.Background(), exe, map[string]string{"DEVICE_SERIAL_NUMBER": "s"}, t.TempDir(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if m.Idle.RSS <= 0 || m.Idle.Anon <= 0 {
		t.Errorf("idle memory %+v", m.Idle)
	}
	// A program that exits without printing ready is an error with its log.
	t.Setenv(testRoleVar, "")
	if _, err := measureProgram(context.Background(), "/bin/false", nil, t.TempDir(), 0); err == nil || !strings.Contains(err.Error(), "exited before") {
		t.Errorf("a program that exits: %v", err)
	}
}

// TestMeasureSubscriptions runs the subscriber child against the platform
// and checks that it subscribed to every topic and that its memory was
// read before and after.
func TestMeasureSubscriptions(t *testing.T) {
	leakcheck.Check(t)
	p, f := testFleet(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	const n = 200
	s, err := measureSubscriptions(ctx, f.Callee, n)
	if err != nil {
		t.Fatal(err)
	}
	subs := 0
	for _, m := range p.Recorded() {
		if m.Kind == platformtest.KindSubscribe && strings.HasPrefix(m.URI, "com.example.memory.") {
			subs++
		}
	}
	if subs != n {
		t.Errorf("%d subscriptions reached the router, want %d", subs, n)
	}
	if s.Count != n || s.Before.RSS <= 0 || s.After.RSS <= 0 || s.HeapBefore <= 0 || s.HeapAfter <= s.HeapBefore {
		t.Errorf("subscription memory %+v", s)
	}
}

func TestPrintMemory(t *testing.T) {
	var b bytes.Buffer
	r := memoryReport{Platform: "linux/amd64", Settle: "2s",
		Programs:      []programMemory{{Program: "sdk", Binary: 6_600_000, Idle: resident{RSS: 6_500_000, Anon: 1_250_000, File: 5_250_000, Peak: 6_600_000}}},
		Subscriptions: subscriptionMemory{Count: 2000, Before: resident{RSS: 10 << 20}, After: resident{RSS: 14 << 20}, HeapBefore: 1 << 20, HeapAfter: 5 << 20}}
	if err := printMemory(&b, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"sdk  6.60 MB   6.50 MB    1.25 MB  5.25 MB   6.60 MB", "per 1,000 subscriptions: RSS +2048 kB, Go heap +2048 kB"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}
