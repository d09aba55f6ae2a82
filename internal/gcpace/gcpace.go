// Package gcpace spaces the garbage collections of a long-running server
// under sustained load. Go collects each time the heap has grown by GOGC
// percent of what the last collection found live; a server that holds
// much live memory (flockd: its sessions) and allocates steadily (its
// appends) then collects often, and the requests that arrive while a
// collection marks wait behind the mark assists of the goroutines that
// serve them. The pacer raises GOGC while the allocation rate would make
// collections come closer than Policy.Interval, within a heap budget, and
// lowers it back to Go's default once the load goes: an idle server runs
// with the default.
package gcpace

import (
	"fmt"
	"time"
)

// DefaultPercent is Go's own GOGC, the least the pacer sets.
const DefaultPercent = 100

// Policy says how far apart the pacer keeps collections.
type Policy struct {
	// Interval is the time wanted between two collections under load.
	Interval time.Duration
	// MaxPercent bounds the GOGC the pacer sets.
	MaxPercent int
	// Budget bounds the heap a collection may wait for, in bytes: the
	// pacer sets no GOGC at which live × (1 + GOGC/100) exceeds it.
	Budget uint64
	// Every is how often the pacer samples the allocation rate.
	Every time.Duration
}

// validate says what is wrong with p, naming the field.
func (p Policy) validate() error {
	switch {
	case p.Interval <= 0:
		return fmt.Errorf("gcpace: Interval %v: must be positive", p.Interval)
	case p.Every <= 0:
		return fmt.Errorf("gcpace: Every %v: must be positive", p.Every)
	case p.MaxPercent < DefaultPercent:
		return fmt.Errorf("gcpace: MaxPercent %d: must be at least %d", p.MaxPercent, DefaultPercent)
	}
	return nil
}

// Percent is the GOGC that spaces collections Interval apart at an
// allocation rate (bytes a second) over a live heap (bytes): the heap
// grows by live × GOGC/100 between two collections, so GOGC is
// 100 × rate × Interval / live, kept between DefaultPercent and
// MaxPercent and under the budget.
func (p Policy) Percent(rate float64, live uint64) int {
	if live == 0 || rate <= 0 || p.Budget <= live {
		return DefaultPercent
	}
	want := min(100*rate*p.Interval.Seconds()/float64(live),
		100*float64(p.Budget-live)/float64(live), float64(p.MaxPercent))
	return max(int(want), DefaultPercent)
}

// pacer turns samples of the runtime into GOGC settings: it smooths the
// allocation rate over samples, so a short burst moves it little, and
// changes the setting only when it moves by a tenth or more.
type pacer struct {
	policy  Policy
	percent int     // the GOGC set
	rate    float64 // smoothed allocation rate, bytes a second
	allocs  uint64  // the runtime's count of bytes allocated at the last sample
	at      time.Duration
	sampled bool
}

// smoothing is the weight of a new sample in the smoothed rate.
const smoothing = 0.3

// observe takes a sample (the time, the bytes allocated so far, the live
// heap) and returns the GOGC to set, with changed false when the setting
// stays.
func (p *pacer) observe(at time.Duration, allocs, live uint64) (percent int, changed bool) {
	if !p.sampled || at <= p.at || allocs < p.allocs {
		p.sampled, p.at, p.allocs = true, at, allocs
		return p.percent, false
	}
	r := float64(allocs-p.allocs) / (at - p.at).Seconds()
	p.at, p.allocs = at, allocs
	p.rate += smoothing * (r - p.rate)
	next := p.policy.Percent(p.rate, live)
	small := next != DefaultPercent && 10*abs(next-p.percent) < p.percent
	if next == p.percent || small {
		return p.percent, false
	}
	p.percent = next
	return next, true
}

// abs is the absolute value of n.
func abs(n int) int { return max(n, -n) }
