// This file holds the load: each behaviour of the scenario's devices
// (append, publish, call) on its schedule, spread evenly over the period
// across the devices, so that n devices every P make n/P operations a
// second without a timer per device.

package main

import (
	"context"
	"time"

	"github.com/flockgo/ironflock/internal/workpool"
)

// minTick is the shortest interval of a schedule's ticker: faster
// schedules fire several devices per tick.
const minTick = 5 * time.Millisecond

// opIdle is how long a worker of the operations (sim.workers) waits for
// the next before it ends. The operations run on kept goroutines, not one
// each: an append's call through the SDK grows a new goroutine's stack
// several times, a tenth of flocksim's CPU in a burst.
const opIdle = 10 * time.Second

// startLoad starts one schedule per behaviour; they fire until ctx ends.
// The operations run with the run's context (s.ctx), so that stopping the
// schedules lets those in flight finish; stop waits for them.
func (s *sim) startLoad(ctx context.Context) {
	s.workers = workpool.New(opIdle)
	dev := s.sc.Device
	if a := dev.Append; a != nil {
		s.spawn(func() { s.schedule(ctx, 0, a.Every, s.appendRow) })
	}
	if p := dev.Publish; p != nil {
		s.spawn(func() { s.schedule(ctx, 1, p.Every, s.publish) })
	}
	if c := dev.Call; c != nil {
		s.spawn(func() { s.schedule(ctx, 2, c.Every, s.call) })
	}
}

// spawn runs fn on a worker of s.workers, which stop waits for.
func (s *sim) spawn(fn func()) {
	s.ops.Add(1)
	s.workers.Go(func() {
		defer s.ops.Done()
		fn()
	})
}

// schedule fires op for every joined device once per every, the devices
// in turn at even intervals. A device whose previous operation still waits
// (through a reconnect) is skipped, and counted so; behaviour indexes the
// device's busy flags.
func (s *sim) schedule(ctx context.Context, behaviour int, every time.Duration, op func(context.Context, *device)) {
	n := len(s.devs)
	tick := every / time.Duration(n)
	if tick < minTick {
		tick = minTick
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	start := time.Now()
	fired := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		due := int(float64(time.Since(start)) / float64(every) * float64(n))
		for ; fired < due; fired++ {
			d := s.devs[fired%n]
			if !d.joined.Load() {
				continue
			}
			busy := &d.busy[behaviour]
			if !busy.CompareAndSwap(false, true) {
				s.meter().skipped.Add(1)
				continue
			}
			s.spawn(func() {
				defer busy.Store(false)
				op(s.ctx, d)
			})
		}
	}
}
