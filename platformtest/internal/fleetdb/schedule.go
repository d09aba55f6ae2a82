// This file holds the timed work of a data backend, on the platform
// clock: each transform with a schedule (cron, template.ParseCron) is
// refreshed when its store computes it (Maintainer, a materialized view)
// and then published on transformed.<transform> (feed.go) at every tick,
// as the platform does; a store that applies retention and downsampling
// (Maintainer) does so when the realm's storage opens and hourly after.
// It serves no URI.
//
// One goroutine per backend with work waits on the clock for the next
// tick; RunSchedules runs the work that is due at once, so that a test
// that moved the clock (Advance) knows when it is done. A tick that comes
// late (the clock jumped) runs once, not once per missed tick. Failures
// are logged and retried at the next tick.

package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// maintenanceSchedule is when a store applies retention and downsampling.
const maintenanceSchedule = "0 * * * *" // hourly

// job is one piece of timed work of a backend.
type job struct {
	name string
	cron *template.Cron
	next time.Time // zero: never again
	run  func(ctx context.Context, now time.Time) error
}

// scheduler runs the jobs of one backend.
type scheduler struct {
	clock realm.Clock
	log   *slog.Logger
	mu    sync.Mutex // held while jobs run; guards jobs
	jobs  []*job
	stop  chan struct{}
	done  chan struct{}
}

// schedule makes the scheduler of a backend and starts it when it has
// work.
func (b *backend) schedule(clock realm.Clock, log *slog.Logger) error {
	s := &scheduler{clock: clock, log: log, stop: make(chan struct{}), done: make(chan struct{})}
	now := clock.Now()
	for _, name := range b.viewNames() {
		v := b.views[name]
		if v.schema.Def == nil || v.schema.Def.Schedule == "" {
			continue
		}
		c, err := template.ParseCron(v.schema.Def.Schedule)
		if err != nil {
			return fmt.Errorf("transform %q: %w", name, err)
		}
		s.add(&job{name: "transform " + name, cron: c, run: func(ctx context.Context, _ time.Time) error {
			if err := b.store.RefreshTransform(ctx, name); err != nil && !errors.Is(err, store.ErrNotSupported) {
				return err
			}
			return b.publishView(ctx, v)
		}}, now)
	}
	if !b.keepsAll && b.hasKnobs() {
		c, _ := template.ParseCron(maintenanceSchedule)
		s.add(&job{name: "retention and downsampling", cron: c, run: func(ctx context.Context, now time.Time) error {
			return b.store.Maintain(ctx, now.UnixMilli())
		}}, now)
	}
	b.sched = s
	if len(s.jobs) == 0 {
		close(s.done)
		return nil
	}
	go s.loop()
	return nil
}

// hasKnobs reports a table with dropAfter or downsample.
func (b *backend) hasKnobs() bool {
	for _, t := range b.tables {
		if d := t.schema.Def; d != nil && (d.DropAfter != "" || d.Downsample != nil) {
			return true
		}
	}
	return false
}

// add schedules j from now.
func (s *scheduler) add(j *job, now time.Time) {
	j.next, _ = j.cron.Next(now)
	s.jobs = append(s.jobs, j)
}

// loop waits for the next tick until the scheduler stops.
func (s *scheduler) loop() {
	defer close(s.done)
	for {
		s.mu.Lock()
		var next time.Time
		for _, j := range s.jobs {
			if !j.next.IsZero() && (next.IsZero() || j.next.Before(next)) {
				next = j.next
			}
		}
		s.mu.Unlock()
		var tick <-chan time.Time
		if !next.IsZero() {
			tick = s.clock.After(next.Sub(s.clock.Now()))
		}
		select {
		case <-s.stop:
			return
		case <-tick:
			if err := s.runDue(context.Background()); err != nil {
				s.log.Warn("fleetdb: scheduled work failed", "err", err)
			}
		}
	}
}

// runDue runs every job whose tick has come and schedules its next one.
func (s *scheduler) runDue(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.clock.Now()
	var errs []error
	for _, j := range s.jobs {
		if j.next.IsZero() || j.next.After(now) {
			continue
		}
		if err := j.run(ctx, now); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", j.name, err))
		}
		j.next, _ = j.cron.Next(now)
	}
	return errors.Join(errs...)
}

// close stops the scheduler and waits for a job that is running.
func (s *scheduler) close() {
	select {
	case <-s.done:
		return
	default:
	}
	close(s.stop)
	<-s.done
}

// RunSchedules runs, at once, the scheduled work of every data backend
// that is due at the platform clock's time (after a test moved it), and
// returns when it is done: the failures joined.
func (db *DB) RunSchedules(ctx context.Context) error {
	var errs []error
	for _, b := range db.openBackends() {
		if err := b.sched.runDue(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", b.realm.Name, err))
		}
	}
	return errors.Join(errs...)
}

// RefreshTransform recomputes a transform of realm when its store
// computes transforms and publishes the view on transformed.<transform>,
// as a schedule tick does.
func (db *DB) RefreshTransform(ctx context.Context, realm, transform string) error {
	b, v, err := db.transform(ctx, realm, transform)
	if err != nil {
		return err
	}
	if err := b.store.RefreshTransform(ctx, transform); err != nil && !errors.Is(err, store.ErrNotSupported) {
		return fmt.Errorf("transform %q: %w", transform, err)
	}
	return b.publishView(ctx, v)
}

// openBackends returns the backends made so far.
func (db *DB) openBackends() []*backend {
	db.mu.Lock()
	defer db.mu.Unlock()
	out := make([]*backend, 0, len(db.backends))
	for _, b := range db.backends {
		out = append(out, b)
	}
	return out
}
