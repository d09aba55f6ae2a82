package gcpace

import (
	"context"
	"math"
	"runtime/debug"
	"testing"
	"time"
)

var sink []byte

// TestRunFollowsThisProcess runs the pacer on this test's own runtime:
// while the test allocates it raises GOGC, once the test stops it sets the
// default again, and it ends with its context.
func TestRunFollowsThisProcess(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	sets := make(chan int, 1024)
	ended := make(chan error, 1)
	p := Policy{Interval: time.Second, MaxPercent: 300, Budget: 1 << 40, Every: 5 * time.Millisecond}
	go func() { ended <- Run(runCtx, p, func(percent int) { sets <- percent }) }()

	raised := make(chan struct{})
	allocating := make(chan struct{})
	go func() { // garbage, far faster than the live heap per second
		defer close(allocating)
		for {
			select {
			case <-raised:
				return
			case <-ctx.Done():
				return
			default:
				for range 64 {
					sink = make([]byte, 64<<10)
				}
			}
		}
	}()
	wait := func(what string, ok func(int) bool) {
		t.Helper()
		for {
			select {
			case got := <-sets:
				if ok(got) {
					return
				}
			case <-ctx.Done():
				t.Fatalf("the pacer never %s", what)
			}
		}
	}
	wait("raised GOGC while the test allocated", func(p int) bool { return p > DefaultPercent })
	close(raised)
	<-allocating
	wait("set the default again once the test stopped allocating", func(p int) bool { return p == DefaultPercent })
	stop()
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("Run = %v, want nil once its context ends", err)
		}
	case <-ctx.Done():
		t.Fatal("Run did not end with its context")
	}
}

func TestRunRefusesABadPolicy(t *testing.T) {
	err := Run(context.Background(), Policy{Interval: time.Second, MaxPercent: 200}, func(int) { t.Error("set called") })
	if err == nil {
		t.Fatal("Run with Every 0 returned nil, want an error")
	}
}

func TestMemoryBudget(t *testing.T) {
	if b := MemoryBudget(); b == 0 {
		t.Fatal("MemoryBudget() = 0")
	}
	old := debug.SetMemoryLimit(3 << 30)
	defer debug.SetMemoryLimit(old)
	if b := MemoryBudget(); b != 3<<29 {
		t.Errorf("with GOMEMLIMIT 3 GiB, MemoryBudget() = %d, want half of it", b)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if m, ok := systemMemory(); ok {
		if b := MemoryBudget(); b != m/2 {
			t.Errorf("MemoryBudget() = %d, want half of the system's %d", b, m)
		}
	}
}
