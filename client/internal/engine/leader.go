// This file holds the reader role of a Session. One goroutine at a time
// reads the link and dispatches what it reads. A request's caller whose
// answer is awaited and who finds the role free takes it: it reads and
// dispatches every message (events, invocations, the answers of others)
// until its own answer comes, then hands the role to the next waiting
// caller, or frees it. This spares the hand-off of each answer from a
// reader goroutine to the caller (a channel send, a wake-up, a trip
// through the scheduler) when one caller waits at a time. Callers that
// find the role held wait as followers: their answer is handed to them, or
// the role is. The session's own goroutine takes the role when it has
// been free for idleGrace (looking only every busyChecks periods while
// callers keep it busy), or at once when a message is already buffered,
// so that events, invocations and pings are read when nobody waits, and
// gives it back as soon as it has handed over an answer, or to a waiting
// caller. Messages are read and dispatched in order whoever reads, and a
// reply that installs state (SUBSCRIBED, REGISTERED) is applied before the
// next message is read, as before.
//
// A caller can leave the role at any time (ctx ended, timeout, Stop): it
// waits for bytes in frameConn.fill, which its read deadline or interrupt
// ends without harm to the link, and enters gorilla only for a message
// already buffered. A link without frameConn (wss through a proxy) is read
// by the session's goroutine alone.

package engine

import (
	"context"
	"fmt"
	"time"
)

// idleGrace is how long the reader role stays free before the session's
// goroutine takes it: long enough for a caller issuing requests back to
// back to take it again itself, short enough not to delay an event
// arriving when nobody waits.
const idleGrace = 5 * time.Millisecond

// busyChecks is how many idleGrace periods pass between two looks of the
// session's goroutine while callers keep the reader role busy. A timer
// event costs the runtime far more than its own code (a wake-up of an idle
// thread and of the poller, measured at about a third of a publish's CPU
// when it came every 5 ms): callers issuing requests back to back meet one
// every 50 ms instead, and an event arriving just after such a burst, while
// nobody waits, is read within 50 ms.
const busyChecks = 10

// Holders of the reader role (Session.role).
const (
	roleFree = iota
	roleSession
	roleCaller
)

// promotion is sent on a waiting request's ch: its caller now holds the
// reader role.
type promotion struct{}

func (promotion) kind() msgType { return 0 }

var promoted message = promotion{}

// wait waits for the final answer to req, reading as the holder of the
// reader role when it is free, else as a follower. Once it has read the
// answer, the caller recycles req. A positive timeout
// bounds the wait (ErrTimeout); ctx and Stop end it with ctx's error and
// ErrStopped. progress, when not nil, runs on the caller whenever
// progressive results may be waiting, and once more before the final answer
// is returned.
func (s *Session) wait(ctx context.Context, id uint64, req *request, timeout time.Duration, progress func()) (message, error) {
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	var ready <-chan struct{}
	if req.progress != nil {
		ready = req.progress.ready
	}
	var t *time.Timer
	var expire <-chan time.Time
	defer func() {
		if t != nil {
			t.Stop()
		}
	}()
	for {
		s.mu.Lock()
		if s.role == roleFree && s.l.fc != nil && !req.answered {
			s.role, s.leader = roleCaller, req
			s.mu.Unlock()
			if m, done, err := s.lead(ctx, id, req, deadline, progress); done {
				return m, err
			}
			continue
		}
		// A caller promoted meanwhile (the role passed to it while it ran
		// Progress) finds its promotion on ch and needs no place in line.
		if !req.answered && !req.following && s.leader != req && s.l.fc != nil {
			req.following = true
			s.followers = append(s.followers, req)
		}
		s.mu.Unlock()
		if timeout > 0 && t == nil {
			// A recycled request keeps its stopped timer.
			if req.timer == nil {
				req.timer = time.NewTimer(time.Until(deadline))
			} else {
				req.timer.Reset(time.Until(deadline))
			}
			t = req.timer
			expire = t.C
		}
		select {
		case m := <-req.ch:
			if m == promoted {
				if m, done, err := s.lead(ctx, id, req, deadline, progress); done {
					return m, err
				}
				continue
			}
			return s.answer(req, m, progress)
		case <-ready:
			progress()
		case <-s.l.closed:
			select {
			case m := <-req.ch:
				if m != promoted {
					return s.answer(req, m, progress)
				}
			default:
			}
			s.giveUp(id, req)
			return nil, s.lost(true)
		case <-ctx.Done():
			s.giveUp(id, req)
			return nil, ctx.Err()
		case <-expire:
			s.giveUp(id, req)
			return nil, ErrTimeout
		case <-s.stop:
			s.giveUp(id, req)
			return nil, ErrStopped
		}
	}
}

// answer returns the final answer m, taken from req.ch, after the last
// progressive results. m may be req's own message: the caller recycles
// req once it has read m.
func (s *Session) answer(req *request, m message, progress func()) (message, error) {
	if progress != nil {
		progress()
	}
	return m, nil
}

// lead reads and dispatches as the holder of the reader role until req's
// final answer comes or the wait ends, then hands the role on; done is
// true then. It leaves the role without an answer (done false, the caller
// waits on as a follower) in two cases: progressive results are waiting
// (the caller's Progress runs without holding the role, so that a slow one
// stalls no reading), and a ping or pong came with no message behind it
// (the session's goroutine takes the role, so that gorilla answers the
// ping at once, which it can do only while reading on).
func (s *Session) lead(ctx context.Context, id uint64, req *request, deadline time.Time, progress func()) (m message, done bool, err error) {
	if stop := s.hook.enter(ctx, s.interrupt); stop != nil {
		defer stop()
	}
	var ready <-chan struct{}
	if req.progress != nil {
		ready = req.progress.ready
	}
	// The deadline was computed just before: it is looked at again only
	// once a fill ended on a deadline.
	timedOut := false
	for {
		// Two looks rather than one select of two cases: a select of one
		// case costs far less, and most requests have no progress.
		select {
		case m := <-req.ch:
			s.mu.Lock()
			s.handOnLocked()
			s.mu.Unlock()
			m, err := s.answer(req, m, progress)
			return m, true, err
		default:
		}
		if ready != nil {
			select {
			case <-ready:
				s.mu.Lock()
				s.handOnLocked()
				s.mu.Unlock()
				progress()
				return nil, false, nil
			default:
			}
		}
		// The deadline is set before the checks: an interrupt for ctx or
		// Stop landing after them still ends the fill.
		s.l.setDeadline(deadline)
		switch {
		case ctx.Err() != nil:
			err = ctx.Err()
		case s.stopped():
			err = ErrStopped
		case timedOut && !time.Now().Before(deadline):
			err = ErrTimeout
		case !s.Alive():
			err = s.lost(true)
		}
		if err != nil {
			s.giveUp(id, req)
			return nil, true, err
		}
		msg, rerr := s.l.receive(false)
		switch {
		case rerr == errControl:
			s.mu.Lock()
			s.leader, s.role, s.handed = nil, roleSession, true
			s.mu.Unlock()
			select {
			case s.wake <- struct{}{}:
			default:
			}
			return nil, false, nil
		case rerr != nil:
			if isTimeout(rerr) {
				// The deadline passed, or an interrupt or an earlier one
				// ended the fill: the checks above tell.
				timedOut = !deadline.IsZero()
			} else {
				s.readFailed(rerr)
			}
		default:
			s.dispatch(msg)
		}
	}
}

// handOnLocked gives up the reader role its holder leaves: to the oldest
// follower still waiting, else to nobody, the session's goroutine taking it
// after idleGrace (at once when a message is already buffered).
func (s *Session) handOnLocked() {
	s.leader = nil
	if s.promoteLocked() {
		return
	}
	s.role = roleFree
	if s.l.fc.ready(true) {
		select {
		case s.wake <- struct{}{}:
		default:
		}
		return
	}
	s.armIdleLocked()
}

// armIdleLocked notes when the role was freed and makes sure the idle timer
// runs: it is not moved at every release (a timer update can wake the
// runtime's poller), the session's goroutine checks on firing how long the
// role has been free.
func (s *Session) armIdleLocked() {
	s.freeAt = time.Now()
	if !s.idleArmed {
		s.idleArmed = true
		s.idle.Reset(s.grace)
	}
}

// promoteLocked hands the reader role to the oldest follower still
// waiting for its answer; it reports false when there is none.
func (s *Session) promoteLocked() bool {
	for len(s.followers) > 0 {
		f := s.followers[0]
		n := copy(s.followers, s.followers[1:])
		s.followers[n] = nil
		s.followers = s.followers[:n]
		f.following = false
		if f.answered || f.left {
			continue
		}
		s.role, s.leader = roleCaller, f
		f.ch <- promoted
		return true
	}
	return false
}

// readLoop is the session's goroutine: it takes the reader role when it is
// free and nobody took it within idleGrace, reads while nobody waits, and
// interrupts the reader once Stop closes. It ends with the link, and ends
// the session then; or, without ending anything, when another goroutine
// became the session's (gen is its generation: see inline.go).
func (s *Session) readLoop(gen uint64) {
	if !s.sessionLoop(gen) {
		return
	}
	s.hook.end()
	s.ended()
	s.endInvocations()
}

// sessionLoop is readLoop's loop: it returns true when the link ended,
// false when its goroutine is the session's no more.
func (s *Session) sessionLoop(gen uint64) bool {
	stop := s.stop
	for {
		fired := false
		select {
		case <-s.wake:
		case <-s.idle.C:
			fired = true
		case <-stop:
			s.l.interrupt()
			stop = nil
			continue
		case <-s.l.closed:
			return true
		}
		s.mu.Lock()
		if gen != s.gen {
			s.mu.Unlock()
			return false
		}
		if s.handed {
			// A caller handed the role over: it holds roleSession already.
			s.handed = false
			s.mu.Unlock()
			if !s.readAsSession(gen) {
				return true
			}
			continue
		}
		if fired {
			s.idleArmed = false
			switch left := s.grace - time.Since(s.freeAt); {
			case s.role == roleFree && left > 0:
				s.idleArmed = true
				s.idle.Reset(left)
			case s.role == roleCaller:
				// Callers are leading: look again later instead of at the
				// next release.
				s.idleArmed = true
				s.idle.Reset(busyChecks * s.grace)
			}
		}
		if s.role != roleFree || fired && s.idleArmed {
			s.mu.Unlock()
			continue
		}
		s.role = roleSession
		s.mu.Unlock()
		if !s.readAsSession(gen) {
			return true
		}
	}
}

// readAsSession reads and dispatches as the holder of the reader role on
// the session's goroutine (of generation gen). It returns true once it
// handed the role on (after handing over an answer, to a waiting caller,
// or while it served an invocation itself), false when the link ended. On
// a link without frameConn it keeps the role for good.
func (s *Session) readAsSession(gen uint64) bool {
	defer s.l.flushHeld() // leaving the role, or the link ended
	for {
		if s.l.fc != nil && !s.l.fc.ready(true) {
			s.l.flushHeld() // answers held while more messages waited
		}
		msg, err := s.l.receive(true)
		if err != nil {
			if s.l.fc != nil && isTimeout(err) {
				// An interrupt meant for a caller that held the role.
				s.l.setDeadline(time.Time{})
				continue
			}
			s.readFailed(err)
			return false
		}
		if m, ok := msg.(*invocationMsg); ok && s.l.fc != nil {
			inv, alive := s.takeInvocation(m)
			switch {
			case !alive:
				return false
			case inv == nil:
			case inv.p.fast():
				if !s.serveInline(inv, gen) {
					return true
				}
			default:
				s.workers.run(inv)
			}
		} else if !s.dispatch(msg) {
			return false
		}
		if s.l.fc == nil {
			continue
		}
		s.mu.Lock()
		if s.promoteLocked() {
			s.mu.Unlock()
			return true
		}
		if isAnswer(msg) {
			// A caller is active: leave the role to it.
			s.role = roleFree
			if s.l.fc.ready(true) {
				s.role = roleSession
				s.mu.Unlock()
				continue
			}
			s.armIdleLocked()
			s.mu.Unlock()
			return true
		}
		s.mu.Unlock()
	}
}

// readFailed ends the link after a failed read.
func (s *Session) readFailed(err error) {
	if s.leaving.Load() {
		s.l.close(ErrStopped)
	} else {
		s.l.close(fmt.Errorf("read: %w", err))
	}
}

// isAnswer reports whether m answers a request.
func isAnswer(m message) bool {
	switch x := m.(type) {
	case *resultMsg, *errorMsg, *publishedMsg, *subscribedMsg, *unsubscribedMsg, *registeredMsg:
		return true
	case *unregisteredMsg:
		return x.Request != 0
	}
	return false
}
