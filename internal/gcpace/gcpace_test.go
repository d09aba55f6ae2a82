package gcpace

import (
	"strings"
	"testing"
	"time"
)

const mib = 1 << 20

func TestPercent(t *testing.T) {
	p := Policy{Interval: 40 * time.Second, MaxPercent: 400, Budget: 4096 * mib, Every: time.Second}
	for _, c := range []struct {
		name string
		rate float64
		live uint64
		want int
	}{
		{"idle", 0, 249 * mib, 100},
		{"nothing live yet", 50 * mib, 0, 100},
		{"collections already far apart", 1 * mib, 249 * mib, 100},
		// flockd holding 19,000 sessions appending 1,900 rows/s: 11.7 MB/s
		// over 249 MB live collect every 21 s at GOGC=100.
		{"the fleet's hold", 11.7 * mib, 249 * mib, 187},
		{"a burst beyond the bound", 200 * mib, 249 * mib, 400},
		{"the budget bounds it", 200 * mib, 1500 * mib, 173},
		{"live beyond the budget", 200 * mib, 5000 * mib, 100},
	} {
		if got := p.Percent(c.rate, c.live); got != c.want {
			t.Errorf("%s: Percent(%.0f B/s, %d B) = %d, want %d", c.name, c.rate, c.live, got, c.want)
		}
	}
}

func TestValidate(t *testing.T) {
	good := Policy{Interval: time.Second, MaxPercent: 100, Every: time.Second}
	if err := good.validate(); err != nil {
		t.Fatalf("validate(%+v) = %v", good, err)
	}
	for field, p := range map[string]Policy{
		"Interval":   {Interval: 0, MaxPercent: 200, Every: time.Second},
		"Every":      {Interval: time.Second, MaxPercent: 200, Every: -1},
		"MaxPercent": {Interval: time.Second, MaxPercent: 50, Every: time.Second},
	} {
		err := p.validate()
		if err == nil || !strings.Contains(err.Error(), field) {
			t.Errorf("validate(%+v) = %v, want an error naming %s", p, err, field)
		}
	}
}

// TestPacerFollowsTheLoad feeds the pacer samples of a load that starts,
// holds and stops: it raises GOGC while the load lasts, ignores small
// moves, and comes back to the default once the load is gone.
func TestPacerFollowsTheLoad(t *testing.T) {
	pc := pacer{policy: Policy{Interval: 40 * time.Second, MaxPercent: 400, Budget: 4096 * mib, Every: 5 * time.Second}, percent: DefaultPercent}
	const live = 249 * mib
	var at time.Duration
	var allocs uint64
	step := func(rate float64) (int, bool) {
		at += 5 * time.Second
		allocs += uint64(rate * 5)
		return pc.observe(at, allocs, live)
	}
	if got, changed := pc.observe(0, 0, live); changed || got != DefaultPercent {
		t.Fatalf("first sample: %d, %v; want the default, unchanged", got, changed)
	}
	for i := range 3 {
		if got, changed := step(0); changed || got != DefaultPercent {
			t.Fatalf("idle sample %d: %d, %v; want the default, unchanged", i, got, changed)
		}
	}
	var sets []int
	for range 30 {
		if got, changed := step(11.7 * mib); changed {
			sets = append(sets, got)
		}
	}
	if len(sets) == 0 || sets[len(sets)-1] < 170 || sets[len(sets)-1] > 187 {
		t.Fatalf("under a steady 11.7 MiB/s the pacer set %v; want it to end between 170 and 187", sets)
	}
	if len(sets) > 8 {
		t.Errorf("under a steady load the pacer changed GOGC %d times (%v): small moves must not change it", len(sets), sets)
	}
	var last int
	for range 30 {
		if got, changed := step(0); changed {
			last = got
		}
	}
	if last != DefaultPercent || pc.percent != DefaultPercent {
		t.Errorf("after the load the pacer's last setting was %d (now %d); want %d", last, pc.percent, DefaultPercent)
	}
}

// TestPacerOddSamples: a sample that does not move forward in time or
// shows fewer bytes allocated than before (a restarted count) starts the
// measure again instead of giving a rate.
func TestPacerOddSamples(t *testing.T) {
	pc := pacer{policy: Policy{Interval: time.Second, MaxPercent: 400, Budget: 1 << 40, Every: time.Second}, percent: DefaultPercent}
	pc.observe(time.Second, 1000*mib, mib)
	for _, s := range []struct {
		at     time.Duration
		allocs uint64
	}{{time.Second, 2000 * mib}, {2 * time.Second, 10}} {
		if got, changed := pc.observe(s.at, s.allocs, mib); changed || got != DefaultPercent {
			t.Errorf("observe(%v, %d): %d, %v; want the default, unchanged", s.at, s.allocs, got, changed)
		}
	}
}
