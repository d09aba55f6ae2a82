// This file holds the rounds of Do and Update (persist.go): changes made
// at the same time share one save, and so one commit and one sync of the
// store. A caller queues its change; when no round is running it leads
// one: under the registry's lock it runs every change queued so far, one
// after the other as if each had the lock alone, keeps all they changed
// as one change, and answers each. The changes queued meanwhile wait for
// the next round, led by the first of them. A lone caller runs its own
// change at once, as before rounds existed; callers that keep changing
// (the management API's requests, each its own installation) pay one sync
// per round rather than one each.
//
// A round is all or nothing on the disk: when the store refuses what the
// round changed, every change of the round is undone and each of its
// callers gets the error. Transact does not join rounds: it undoes its
// own change when its function fails, which a round could not tell apart
// from the changes run before it.

package registry

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"
)

// rounds queues the changes waiting for a round.
type rounds struct {
	mu      sync.Mutex
	queue   []*change
	running bool         // a round is running, or its successor was named
	last    atomic.Int64 // how many changes the last round took
}

// change is one caller's change waiting for its round.
type change struct {
	f      func(s *State) error
	err    error // f's error joined with the round's keep error
	panic  any   // f panicked: the caller panics with it
	wake   chan struct{}
	leader bool // set before wake closes: the caller leads the next round
}

// change runs f in a round and returns f's error joined with the error of
// keeping the round's change. A panic in f is the caller's panic.
func (r *Registry) change(f func(s *State) error) error {
	c := &change{f: f, wake: make(chan struct{})}
	r.rounds.mu.Lock()
	r.rounds.queue = append(r.rounds.queue, c)
	lead := !r.rounds.running
	r.rounds.running = true
	r.rounds.mu.Unlock()
	if !lead {
		<-c.wake // answered, or named the next leader
		lead = c.leader
	}
	if lead {
		r.round(c)
	}
	if c.panic != nil {
		panic(c.panic)
	}
	return c.err
}

// round runs the queued changes (leader's among them) under the lock,
// keeps them as one change and answers their callers, then names the
// first change queued meanwhile the next leader. When the last round took
// more than one change, callers are changing side by side: the leader
// first lets the goroutines that can run do so, which brings the changes
// on their way (on a busy machine they wait for a core, not for the disk)
// into this round rather than the next.
func (r *Registry) round(leader *change) {
	if r.rounds.last.Load() > 1 {
		runtime.Gosched()
	}
	r.rounds.mu.Lock()
	batch := r.rounds.queue
	r.rounds.queue = nil
	r.rounds.mu.Unlock()
	r.rounds.last.Store(int64(len(batch)))

	r.mu.Lock()
	for _, c := range batch {
		c.run(&r.st)
	}
	kerr := r.keepLocked()
	r.mu.Unlock()

	r.rounds.mu.Lock()
	if len(r.rounds.queue) > 0 {
		next := r.rounds.queue[0]
		next.leader = true
		close(next.wake)
	} else {
		r.rounds.running = false
	}
	r.rounds.mu.Unlock()
	for _, c := range batch {
		if kerr != nil {
			c.err = errors.Join(c.err, kerr)
		}
		if c != leader {
			close(c.wake)
		}
	}
}

// run runs the change's function, recording its error or its panic, and
// logs what it counted rather than logged (logs.go) as its own call.
func (c *change) run(s *State) {
	defer s.endLines()
	defer func() {
		if p := recover(); p != nil {
			c.panic = p
		}
	}()
	c.err = c.f(s)
}
