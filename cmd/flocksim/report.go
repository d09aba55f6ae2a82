// This file holds the reports: a stage's figures (joined, rate,
// acknowledgement latency, errors by URI, memory per device), the live
// line on standard error and the JSON summary.

package main

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// stageReport is one stage's figures.
type stageReport struct {
	Name    string  `json:"name"`
	Kind    string  `json:"kind"`
	Seconds float64 `json:"seconds"`
	// Devices is how many devices this process drives; Joined how many
	// are joined at the stage's end; Missing how many a ramp could not
	// join or a storm did not get back within the stage's timeout.
	Devices int `json:"devices"`
	Joined  int `json:"joined"`
	Missing int `json:"missing"`
	// Joins counts the sessions joined during the stage (a storm's
	// rejoins too), JoinRate them a second.
	Joins    int64   `json:"joins"`
	JoinRate float64 `json:"join_rate"`
	// JoinLatency is a ramp's time from Start to joined, per device.
	JoinLatency *latency `json:"join_latency,omitempty"`
	// BackSeconds is a storm's time from the cut (or kill) until every
	// device had joined again; FlockdRestartSeconds flockd's own start.
	BackSeconds          float64 `json:"back_seconds,omitempty"`
	FlockdRestartSeconds float64 `json:"flockd_restart_seconds,omitempty"`
	// Acked counts acknowledged operations (appends, publications, calls),
	// Rate them a second; Appends the appends among them.
	Acked   int64        `json:"acked"`
	Rate    float64      `json:"rate"`
	Appends int64        `json:"appends"`
	Served  int64        `json:"served"`
	Events  int64        `json:"events"`
	Failed  int64        `json:"failed"`
	Skipped int64        `json:"skipped"`
	Latency latency      `json:"latency"`
	Errors  []errorCount `json:"errors"`
	Memory  memory       `json:"memory"`
}

// latency is a histogram's summary, in milliseconds.
type latency struct {
	P50 float64 `json:"p50_ms"`
	P99 float64 `json:"p99_ms"`
	Max float64 `json:"max_ms"`
}

func latencyOf(h *histogram) latency {
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return latency{P50: ms(h.quantile(0.5)), P99: ms(h.quantile(0.99)), Max: ms(time.Duration(h.max.Load()) * time.Microsecond)}
}

// memory is flocksim's memory (and flockd's, when flocksim runs it) at a
// stage's end, after a garbage collection, and per joined device: the
// growth since before the first client was made, over the devices joined.
type memory struct {
	RSSBytes       int64 `json:"rss_bytes"`
	HeapBytes      int64 `json:"heap_bytes"`
	Goroutines     int   `json:"goroutines"`
	RSSPerDevice   int64 `json:"rss_per_device"`
	HeapPerDevice  int64 `json:"heap_per_device"`
	FlockdRSSBytes int64 `json:"flockd_rss_bytes,omitempty"`
	// FlockdPerSession is flockd's growth since it served, before the
	// first join, over the devices joined.
	FlockdPerSession int64 `json:"flockd_rss_per_session,omitempty"`
}

// memSample is this process's memory now.
type memSample struct{ rss, heap int64 }

// sampleMemory collects garbage, returns the free pages to the system
// (the paced collector may have let the heap grow under load) and reads
// the resident memory and the Go heap in use.
func sampleMemory() memSample {
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	rss, _ := rssOf("self")
	return memSample{rss: rss, heap: int64(ms.HeapInuse)}
}

// joinedCount counts the devices joined now.
func (s *sim) joinedCount() int {
	n := 0
	for _, d := range s.devs {
		if d.joined.Load() && d.c.IsConnected() {
			n++
		}
	}
	return n
}

// fill completes r from m, the stage having ended at ended, and the state
// now.
func (s *sim) fill(r *stageReport, m *meter, ended time.Time) {
	secs := ended.Sub(m.start).Seconds()
	r.Seconds = secs
	r.Devices = len(s.devs)
	r.Joined = s.joinedCount()
	r.Joins = m.joins.Load()
	r.JoinRate = float64(r.Joins) / secs
	if m.joinLat.n.Load() > 0 {
		jl := latencyOf(&m.joinLat)
		r.JoinLatency = &jl
	}
	r.Acked, r.Appends, r.Served, r.Events = m.acked.Load(), m.appends.Load(), m.served.Load(), m.events.Load()
	r.Failed, r.Skipped = m.failed.Load(), m.skipped.Load()
	r.Rate = float64(r.Acked) / secs
	r.Latency = latencyOf(&m.lat)
	r.Errors = m.errorsSorted()
	now := sampleMemory()
	r.Memory = memory{RSSBytes: now.rss, HeapBytes: now.heap, Goroutines: runtime.NumGoroutine()}
	if held := s.heldDevices(); held > 0 {
		r.Memory.RSSPerDevice = (now.rss - s.base.rss) / int64(held)
		r.Memory.HeapPerDevice = (now.heap - s.base.heap) / int64(held)
	}
	if s.flockd != nil {
		if rss, err := rssOf(strconv.Itoa(s.flockd.pid())); err == nil {
			r.Memory.FlockdRSSBytes = rss
			if r.Joined > 0 {
				r.Memory.FlockdPerSession = (rss - s.flockdBase) / int64(r.Joined)
			}
		}
	}
}

// heldDevices counts the devices whose client is started (joined once and
// not stopped).
func (s *sim) heldDevices() int {
	n := 0
	for _, d := range s.devs {
		if d.joined.Load() {
			n++
		}
	}
	return n
}

// live writes a line on w every interval until ctx ends: the stage, the
// devices joined, the acknowledgements and their rate since the last line,
// the p99 of the stage, the failures, the memory.
func (s *sim) live(ctx context.Context, w io.Writer, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	var lastAcked int64
	var lastMeter *meter
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m := s.meter()
		if m != lastMeter {
			lastMeter, lastAcked = m, 0
		}
		acked := m.acked.Load()
		now := time.Now()
		rate := float64(acked-lastAcked) / now.Sub(last).Seconds()
		lastAcked, last = acked, now
		rss, _ := rssOf("self")
		fmt.Fprintf(w, "flocksim: %s %5.1fs joined %d/%d acked %d (%.0f/s) p99 %.1fms failed %d skipped %d rss %d MiB\n",
			*s.stageName.Load(), now.Sub(m.start).Seconds(), s.joinedCount(), len(s.devs), acked, rate,
			float64(m.lat.quantile(0.99).Microseconds())/1000, m.failed.Load(), m.skipped.Load(), rss>>20)
	}
}

// summary is the JSON summary written at the end.
type summary struct {
	Version  string    `json:"version"`
	Scenario string    `json:"scenario"`
	Started  time.Time `json:"started"`
	Shard    string    `json:"shard"`
	Sources  []string  `json:"sources,omitempty"`
	Devices  int       `json:"devices"`
	Flockd   bool      `json:"flockd_started"`
	// FlockdBaseRSS is flockd's resident memory once it served, before
	// the first join.
	FlockdBaseRSS int64 `json:"flockd_base_rss_bytes,omitempty"`
	// Appends counts every append acknowledged in the run.
	Appends int64         `json:"appends"`
	Stages  []stageReport `json:"stages"`
	Verify  *verifyReport `json:"verify,omitempty"`
}
