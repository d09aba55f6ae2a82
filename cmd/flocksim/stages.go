// This file holds the stages: ramp (join at a rate), hold, storm (cut
// every link, or kill -9 flockd and start it again) and stop, each with
// its report.

package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// pollEvery is how often a storm looks whether the devices are back.
const pollEvery = 100 * time.Millisecond

// runStage runs st and returns its report.
// Its meter is the current one, made when the previous stage ended (what
// is acknowledged in between counts in this stage); a fresh one takes
// over as soon as the stage ends, before its report is read.
func (s *sim) runStage(st stage) (stageReport, error) {
	m := s.meter()
	s.stageName.Store(&st.Name)
	r := stageReport{Name: st.Name, Kind: st.kind()}
	var err error
	switch st.kind() {
	case "ramp":
		r.Missing = s.ramp(st)
		if !s.loadOn {
			s.loadOn = true
			lctx, cancel := context.WithCancel(s.ctx)
			s.stopSchedules = cancel
			s.startLoad(lctx)
		}
	case "hold":
		select {
		case <-time.After(st.Hold):
		case <-s.ctx.Done():
			err = s.ctx.Err()
		}
	case "storm":
		var restart time.Duration
		restart, r.Missing, err = s.storm(st)
		r.FlockdRestartSeconds = restart.Seconds()
		r.BackSeconds = time.Since(m.start).Seconds()
	case "stop":
		s.stop()
	}
	ended := time.Now()
	s.cur.Store(newMeter())
	s.fill(&r, m, ended)
	return r, err
}

// ramp starts the clients of the devices not yet joined, at st.Ramp a
// second, and waits until each has joined or st.Timeout has passed since
// the stage began; it returns how many did not join.
func (s *sim) ramp(st stage) int {
	ctx, cancel := context.WithTimeout(s.ctx, st.Timeout)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	k := 0
	for _, d := range s.devs {
		if d.joined.Load() {
			continue
		}
		at := start.Add(time.Duration(float64(k) / st.Ramp * float64(time.Second)))
		k++
		if wait := time.Until(at); wait > 0 {
			select {
			case <-time.After(wait):
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.join(ctx, d)
		}()
	}
	wg.Wait()
	missing := 0
	for _, d := range s.devs {
		if !d.joined.Load() {
			missing++
		}
	}
	return missing
}

// storm cuts every joined device's link (drop) or kills flockd and starts
// it again (kill), then waits until every device that was joined has
// joined a new session, or st.Timeout has passed. It returns how long
// flockd took to start again and how many devices did not come back.
func (s *sim) storm(st stage) (restart time.Duration, missing int, err error) {
	ctx, cancel := context.WithTimeout(s.ctx, st.Timeout)
	defer cancel()
	before := make(map[*device]uint64, len(s.devs))
	for _, d := range s.devs {
		if !d.joined.Load() {
			continue
		}
		info, _ := d.c.Session()
		before[d] = info.ID
	}
	switch st.Storm {
	case "drop":
		for d := range before {
			d.conn.cut()
		}
	case "kill":
		s.flockd.kill()
		t := time.Now()
		if _, err := s.flockd.start(ctx); err != nil {
			return 0, len(before), fmt.Errorf("storm %s: restart flockd: %w", st.Name, err)
		}
		restart = time.Since(t)
	}
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		for d, id := range before {
			if info, ok := d.c.Session(); ok && info.ID != id && d.c.IsConnected() {
				delete(before, d)
				s.meter().joins.Add(1)
			}
		}
		if len(before) == 0 {
			return restart, 0, nil
		}
		select {
		case <-ctx.Done():
			return restart, len(before), nil
		case <-tick.C:
		}
	}
}

// stop ends the schedules, waits for the operations in flight, and stops
// every client, 64 at a time.
func (s *sim) stop() {
	if s.stopSchedules != nil {
		s.stopSchedules()
	}
	s.ops.Wait()
	if s.workers != nil {
		s.workers.Close()
	}
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for _, d := range s.devs {
		if !d.joined.Load() {
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := d.c.Stop(ctx); err != nil {
				s.meter().fail("stop", err)
			}
			d.joined.Store(false)
		}()
	}
	wg.Wait()
	s.stopped = true
}
