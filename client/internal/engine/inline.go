// This file holds the serving of fast invocations on the session's
// goroutine itself.
//
// Handing an invocation from the goroutine that read it to a worker costs
// a wake-up of that worker, and with it, on an idle machine, of a thread:
// more than the rest of serving a fast handler (a floor callee, which
// reads, answers and reads on in one goroutine, pays none). So while the
// session's goroutine is the reader, an invocation of a procedure whose
// handlers have been fast (fastHandler on average) is served right there,
// one after the other as the floor does; others go to workers as before,
// as do the invocations a caller reads while it waits for its answer.
//
// While it serves, the session's goroutine gives up the reader role: a
// caller waiting for an answer reads meanwhile, and it takes the role back
// after the handler if it is still free. A handler that turns out slow
// must not stall the reading of everything else for long: a watch looks
// every inlineWatch while handlers run on the session's goroutine, and one
// it finds running on two looks in a row has its goroutine made a worker:
// a new goroutine becomes the session's (a generation higher) and reads on,
// and the procedure is marked slow, so that its next invocations go to
// workers. The reading of other messages waits at most about two
// inlineWatch periods for a slow handler.

package engine

import "time"

// fastHandler is the average handler time under which a procedure's
// invocations are served on the session's goroutine.
const fastHandler = 50 * time.Microsecond

// inlineWatch is the period of the watch on a handler the session's
// goroutine runs.
const inlineWatch = 10 * time.Millisecond

// took notes a handler's time: a moving average (weight 1/8) of the
// procedure's handler times, stored plus one so that 0 means none yet.
func (p *Procedure) took(d time.Duration) {
	ns := int64(d) + 1
	if old := p.handlerNanos.Load(); old != 0 {
		ns = old + (ns-old)/8
	}
	p.handlerNanos.Store(ns)
}

// fast reports whether the procedure's handlers have been fast: its
// invocations are then served on the session's goroutine. Until one has
// run, they are not.
func (p *Procedure) fast() bool {
	ns := p.handlerNanos.Load()
	return ns != 0 && ns <= int64(fastHandler)
}

// serveInline serves inv on the session's goroutine (of generation gen),
// which gives up the reader role meanwhile; it returns true when the
// goroutine reads on as the session's, holding the role again. When more
// messages wait to be read, the answer is held, to leave with the answers
// to them (readAsSession flushes before it waits for more).
func (s *Session) serveInline(inv *invocation, gen uint64) bool {
	inv.hold = s.l.fc.ready(false)
	s.mu.Lock()
	if !s.promoteLocked() {
		s.role = roleFree
	}
	s.inlineSeq++
	s.inlineNow, s.inlineProc = s.inlineSeq, inv.p
	if !s.watchArmed {
		s.watchArmed, s.watchSeq = true, s.inlineNow
		if s.watch == nil { // the first handler this goroutine runs
			s.watch = time.AfterFunc(inlineWatch, s.watchInline)
		} else {
			s.watch.Reset(inlineWatch)
		}
	}
	s.mu.Unlock()
	s.serve(inv)
	s.mu.Lock()
	reading := gen == s.gen // else a worker now: another goroutine is the session's
	if reading {
		s.inlineNow, s.inlineProc = 0, nil
		// A caller may read now, or have handed the role back to be woken.
		reading = s.role == roleFree
		if reading {
			s.role = roleSession
		}
	}
	s.mu.Unlock()
	if !reading {
		s.l.flushHeld()
	}
	return reading
}

// watchInline is the watch on the handlers the session's goroutine runs:
// it finds the one running now running since its last look, or looks
// again later, or stops looking when none runs.
func (s *Session) watchInline() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watchArmed = false
	switch {
	case s.inlineNow == 0:
		return
	case s.inlineNow != s.watchSeq:
		s.watchArmed, s.watchSeq = true, s.inlineNow
		s.watch.Reset(inlineWatch)
		return
	}
	// Slow: its goroutine finishes it as a worker would, and another
	// becomes the session's, taking the role if it is free.
	s.inlineProc.handlerNanos.Store(int64(2*inlineWatch) + 1)
	s.inlineNow, s.inlineProc = 0, nil
	s.gen++
	go s.readLoop(s.gen)
	select {
	case s.wake <- struct{}{}:
	default:
	}
}
