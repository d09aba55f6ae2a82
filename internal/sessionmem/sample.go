package sessionmem

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"
)

// Sample is what a process holds at one moment: its resident memory from
// /proc/self/status (zero where there is no /proc), and, after a
// collection, the Go heap and goroutine stacks in use and the number of
// goroutines.
type Sample struct {
	RSS        int64 `json:"rss_bytes"`  // VmRSS
	Anon       int64 `json:"anon_bytes"` // RssAnon: heap, stacks
	HeapInuse  int64 `json:"heap_inuse_bytes"`
	StackInuse int64 `json:"stack_inuse_bytes"`
	Goroutines int   `json:"goroutines"`
}

// Take collects garbage, lets finalizers and ending goroutines run,
// returns the free pages to the system as an idle process's scavenger
// does in time, and samples the process. Without that last step the
// resident memory counts garbage of the joins that the runtime had not
// given back yet, and moved by 6 KiB per session from run to run.
func Take() (Sample, error) {
	for range 6 {
		runtime.GC()
		time.Sleep(10 * time.Millisecond) // not a timed assertion: it lets finalizers and exiting goroutines settle
	}
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := Sample{HeapInuse: int64(ms.HeapInuse), StackInuse: int64(ms.StackInuse), Goroutines: runtime.NumGoroutine()}
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		if os.IsNotExist(err) {
			return s, nil
		}
		return s, fmt.Errorf("sessionmem: read /proc/self/status: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		name, rest, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *int64
		switch string(name) {
		case "VmRSS":
			dst = &s.RSS
		case "RssAnon":
			dst = &s.Anon
		default:
			continue
		}
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return s, fmt.Errorf("sessionmem: /proc/self/status: %s is %q, want a size in kB", name, rest)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return s, fmt.Errorf("sessionmem: /proc/self/status: %s: %w", name, err)
		}
		*dst = kb << 10
	}
	return s, nil
}

// PerSession is the growth from Before to After divided by Sessions.
type PerSession struct {
	Sessions      int
	Before, After Sample
}

// RSS returns the resident memory per session.
func (p PerSession) RSS() float64 { return p.per(p.After.RSS - p.Before.RSS) }

// Anon returns the anonymous resident memory per session.
func (p PerSession) Anon() float64 { return p.per(p.After.Anon - p.Before.Anon) }

// Heap returns the Go heap in use per session.
func (p PerSession) Heap() float64 { return p.per(p.After.HeapInuse - p.Before.HeapInuse) }

// Stack returns the goroutine stacks in use per session.
func (p PerSession) Stack() float64 { return p.per(p.After.StackInuse - p.Before.StackInuse) }

// InUse returns the Go heap and stacks in use per session.
func (p PerSession) InUse() float64 { return p.Heap() + p.Stack() }

// Goroutines returns the goroutines per session.
func (p PerSession) Goroutines() float64 {
	return p.per(int64(p.After.Goroutines - p.Before.Goroutines))
}

func (p PerSession) per(d int64) float64 { return float64(d) / float64(max(p.Sessions, 1)) }

// String summarizes p in KiB per session.
func (p PerSession) String() string {
	return fmt.Sprintf("%d sessions: per session RSS %.1f KiB (anonymous %.1f), heap %.1f KiB, stacks %.1f KiB, %.2f goroutines",
		p.Sessions, p.RSS()/1024, p.Anon()/1024, p.Heap()/1024, p.Stack()/1024, p.Goroutines())
}
