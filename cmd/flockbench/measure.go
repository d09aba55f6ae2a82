// This file holds the harness: running a workload's operations, and the
// CPU, allocation and wall-clock figures of an interval.

package main

import (
	"context"
	"runtime"
	"slices"
	"sync"
	"time"
)

// sample is what one measured interval cost.
type sample struct {
	Ops     int64
	Wall    time.Duration
	CPU     time.Duration // user + system CPU time of this process
	Mallocs uint64
	Bytes   uint64
}

// CPUPerOp is the CPU time per operation in microseconds.
func (s sample) CPUPerOp() float64 { return per(float64(s.CPU.Nanoseconds())/1e3, s.Ops) }

// AllocsPerOp is the number of heap allocations per operation.
func (s sample) AllocsPerOp() float64 { return per(float64(s.Mallocs), s.Ops) }

// BytesPerOp is the bytes allocated per operation.
func (s sample) BytesPerOp() float64 { return per(float64(s.Bytes), s.Ops) }

// OpsPerSec is the throughput.
func (s sample) OpsPerSec() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.Ops) / s.Wall.Seconds()
}

func per(x float64, ops int64) float64 {
	if ops == 0 {
		return 0
	}
	return x / float64(ops)
}

// snapshot is the process's counters at one moment.
type snapshot struct {
	at      time.Time
	ops     int64
	cpu     time.Duration
	mallocs uint64
	bytes   uint64
}

func take(ctl *control) (snapshot, error) {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	cpu, err := processCPU()
	return snapshot{at: time.Now(), ops: ctl.completed.Load(), cpu: cpu, mallocs: ms.Mallocs, bytes: ms.TotalAlloc}, err
}

// since is the sample between s0 and s.
func (s snapshot) since(s0 snapshot) sample {
	return sample{Ops: s.ops - s0.ops, Wall: s.at.Sub(s0.at), CPU: s.cpu - s0.cpu,
		Mallocs: s.mallocs - s0.mallocs, Bytes: s.bytes - s0.bytes}
}

// launch starts w's operations for sc under ctl; the channel returned
// yields the first error (nil when none) once every operation has ended.
// The first error stops the others.
func launch(ctx context.Context, w *workload, sc scenario, ctl *control) <-chan error {
	ctx, cancel := context.WithCancel(ctx)
	var (
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	fail := func(err error) {
		once.Do(func() {
			first = err
			ctl.stop()
			cancel()
		})
	}
	if w.loop != nil {
		wg.Go(func() {
			if err := w.loop(ctx, ctl); err != nil {
				fail(err)
			}
		})
	} else {
		for i := range sc.InFlight {
			wg.Go(func() {
				for ctl.take() {
					if err := w.op(ctx, i); err != nil {
						fail(err)
						return
					}
					ctl.done()
				}
			})
		}
	}
	errc := make(chan error, 1)
	go func() {
		wg.Wait()
		cancel()
		errc <- first
	}()
	return errc
}

// runCount runs exactly n operations and returns what they cost.
func runCount(ctx context.Context, w *workload, sc scenario, n int64) (sample, error) {
	ctl := newControl(n)
	runtime.GC()
	s0, err := take(ctl)
	if err != nil {
		return sample{}, err
	}
	if err := <-launch(ctx, w, sc, ctl); err != nil {
		return sample{}, err
	}
	s1, err := take(ctl)
	return s1.since(s0), err
}

// runTimed runs w for warmup and then measures an interval of d.
func runTimed(ctx context.Context, w *workload, sc scenario, warmup, d time.Duration) (sample, error) {
	ctl := newControl(0)
	runtime.GC()
	errc := launch(ctx, w, sc, ctl)
	finish := func(err error) error {
		ctl.stop()
		if werr := <-errc; werr != nil && err == nil {
			err = werr
		}
		return err
	}
	wait := func(d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return nil
		case err := <-errc:
			errc = closedWith(err) // let finish read it again
			if err == nil {
				err = context.Canceled
			}
			return err
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	if err := wait(warmup); err != nil {
		return sample{}, finish(err)
	}
	s0, err := take(ctl)
	if err != nil {
		return sample{}, finish(err)
	}
	if err := wait(d); err != nil {
		return sample{}, finish(err)
	}
	s1, err := take(ctl)
	return s1.since(s0), finish(err)
}

// closedWith returns a channel that yields err.
func closedWith(err error) <-chan error {
	c := make(chan error, 1)
	c <- err
	return c
}

// medianFloat returns the median of xs (the mean of the middle two of an
// even count).
func medianFloat(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// median returns the sample with the median CPU per operation.
func median(samples []sample) sample {
	s := slices.Clone(samples)
	slices.SortFunc(s, func(a, b sample) int {
		switch x, y := a.CPUPerOp(), b.CPUPerOp(); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	return s[len(s)/2]
}
