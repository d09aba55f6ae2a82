package platformtest

import (
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

func TestClockStartAndAdvance(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := New(t, WithStartTime(start))
	c := p.Clock()
	if now := c.Now(); now.Before(start) || now.Sub(start) > time.Hour {
		t.Fatalf("Now() = %v, want just after %v", now, start)
	}
	before := c.Now()
	c.Advance(48 * time.Hour)
	if d := c.Now().Sub(before); d < 48*time.Hour {
		t.Errorf("Advance(48h) moved the clock by %v", d)
	}
	target := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	c.Set(target)
	if now := c.Now(); now.Before(target) || now.Sub(target) > time.Hour {
		t.Errorf("after Set, Now() = %v", now)
	}
}

func TestClockAfter(t *testing.T) {
	c := newClock(time.Time{})
	defer c.stop()

	advanced := c.After(time.Hour)
	byTime := c.After(time.Millisecond)
	immediate := c.After(0)
	select {
	case <-immediate:
	default:
		t.Error("After(0) did not fire at once")
	}
	select {
	case <-byTime:
	case <-time.After(worldtest.Timeout):
		t.Fatal("After(1ms) never fired")
	}
	select {
	case <-advanced:
		t.Fatal("After(1h) fired early")
	default:
	}
	c.Advance(30 * time.Minute)
	select {
	case <-advanced:
		t.Fatal("After(1h) fired after 30 minutes")
	default:
	}
	c.Advance(30 * time.Minute)
	select {
	case at := <-advanced:
		if at.IsZero() {
			t.Error("zero time sent")
		}
	default:
		t.Fatal("After(1h) did not fire after Advance(1h)")
	}

	viaSet := c.After(24 * time.Hour)
	c.Set(c.Now().Add(25 * time.Hour))
	select {
	case <-viaSet:
	default:
		t.Fatal("After(24h) did not fire after Set to a later time")
	}

	pending := c.After(time.Hour)
	c.stop()
	c.Advance(2 * time.Hour)
	select {
	case <-pending:
		t.Fatal("a waiter fired after stop")
	default:
	}
	if never := c.After(0); len(never) != 0 {
		t.Error("After on a stopped clock fired")
	}
}
