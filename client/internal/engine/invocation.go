// This file holds the serving of INVOCATIONs: the reader hands each to a
// worker goroutine with what its handler needs (invocation, recycled with
// its buffers once answered), the handler runs, and its YIELD or ERROR is
// written. Workers are kept for the next invocation rather than started
// per invocation; each invocation still runs at once on a worker of its
// own, bounded by its procedure's Limit as before.

package engine

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// maxIdleWorkers bounds the workers kept waiting for an invocation: fast
// handlers rarely run more at once; beyond them a worker ends when its
// invocation is answered.
const maxIdleWorkers = 8

// invocation is one INVOCATION on its way through its handler.
type invocation struct {
	s   *Session
	p   *Procedure
	ctx *invocationCtx // its own, never reused: a handler may keep it

	request uint64
	invocationDetails
	args   []any
	kwargs map[string]any
	// For a procedure taking its payload encoded: a checked copy of it,
	// with the reader the handler reads it with.
	raw    rawPayload
	rawBuf []byte
	reader Reader

	yield yieldMsg
	hold  bool   // the answer is held (serveInline)
	one   [1]any // the handler's single result (Invocation.One)
	// The single result written by the handler (Invocation.EncodeOne).
	enc    Encoder
	encBuf []byte
	value  rawValue
}

var invocationPool = sync.Pool{New: func() any { return new(invocation) }}

// recycle returns inv to the pool, keeping its buffers (but large ones)
// and its reader's texts, and nothing of its invocation.
func (inv *invocation) recycle() {
	inv.s, inv.p, inv.ctx = nil, nil, nil
	inv.request, inv.invocationDetails = 0, invocationDetails{}
	inv.args, inv.kwargs, inv.raw = nil, nil, rawPayload{}
	inv.yield, inv.hold, inv.one[0], inv.value = yieldMsg{}, false, nil, rawValue{}
	if cap(inv.rawBuf) > maxKeptBuffer {
		inv.rawBuf = nil
	}
	if cap(inv.encBuf) > maxKeptBuffer {
		inv.encBuf = nil
	}
	inv.enc.b = nil
	inv.reader.release()
	invocationPool.Put(inv)
}

// workers are the goroutines kept to run invocations: idle ones wait on
// their channel, most recently idle last.
type workers struct {
	mu    sync.Mutex
	idle  []chan *invocation
	ended bool
}

// run runs inv on an idle worker, or on a new one.
func (w *workers) run(inv *invocation) {
	w.mu.Lock()
	if n := len(w.idle); n > 0 {
		ch := w.idle[n-1]
		w.idle[n-1] = nil
		w.idle = w.idle[:n-1]
		w.mu.Unlock()
		ch <- inv
		return
	}
	w.mu.Unlock()
	go w.work(make(chan *invocation, 1), inv)
}

// work serves inv, then the invocations handed to it while it is kept.
func (w *workers) work(ch chan *invocation, inv *invocation) {
	for inv != nil {
		inv.s.serve(inv)
		w.mu.Lock()
		if w.ended || len(w.idle) >= maxIdleWorkers {
			w.mu.Unlock()
			return
		}
		w.idle = append(w.idle, ch)
		w.mu.Unlock()
		inv = <-ch
	}
}

// end lets the idle workers go and keeps no more.
func (w *workers) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.ended = true
	for _, ch := range w.idle {
		close(ch)
	}
	w.idle = nil
}

// onInvocation starts the handler of m on a worker, or refuses m (see
// takeInvocation); it returns false when m's payload was malformed, which
// ended the link.
func (s *Session) onInvocation(m *invocationMsg) bool {
	inv, alive := s.takeInvocation(m)
	if inv != nil {
		s.workers.run(inv)
	}
	return alive
}

// takeInvocation returns what m's handler needs, or nil when it refused m:
// its procedure is not registered here (any more), or has Limit
// invocations in flight. alive is false when m's payload was malformed,
// which ended the link.
func (s *Session) takeInvocation(m *invocationMsg) (inv *invocation, alive bool) {
	s.mu.Lock()
	p := s.regs[m.Registration]
	s.mu.Unlock()
	// Only the holder of the reader role dispatches, one message at a time,
	// so the check of the limit and the increment below cannot be
	// overtaken; handlers ending only lower the count.
	if p == nil || p.Limit > 0 && p.inFlight.Load() >= int64(p.Limit) {
		if m.raw.lazy {
			if err := m.raw.check(); err != nil {
				return nil, s.undecodable(m, err)
			}
		}
		if p == nil {
			_ = s.l.write(&errorMsg{Type: mtInvocation, Request: m.Request, Details: map[string]any{},
				Error: wire.ErrNoSuchProcedure, Args: []any{"the procedure has been unregistered"}})
		} else {
			s.refuse(p, m)
		}
		return nil, true
	}
	inv = invocationPool.Get().(*invocation)
	inv.s, inv.p, inv.request, inv.invocationDetails = s, p, m.Request, m.invocationDetails
	var err error
	switch {
	case p.Raw && m.raw.lazy:
		if err = m.raw.check(); err == nil {
			inv.raw = m.raw.copyTo(inv.rawBuf)
			inv.rawBuf = inv.raw.b
		}
	case p.Raw:
		// Decoded as a whole (not the lazy read): encoded again, so that
		// the handler reads it as ever.
		inv.raw, inv.rawBuf = encodePayload(inv.rawBuf, s.l.json, m.Args, m.Kwargs)
	case m.raw.lazy:
		inv.args, inv.kwargs, err = m.raw.decode(s.l.keyCache(), &s.l.jstack)
	default:
		inv.args, inv.kwargs = m.Args, m.Kwargs
	}
	if err != nil {
		inv.recycle()
		return nil, s.undecodable(m, err)
	}
	p.inFlight.Add(1)
	s.mu.Lock()
	inv.ctx = newInvocationCtx(inv.timeout, s.invsEnded)
	if s.invs == nil {
		s.invs = map[uint64]*invocationCtx{}
	}
	s.invs[m.Request] = inv.ctx
	s.handlers.Add(1)
	s.mu.Unlock()
	return inv, true
}

// onInterrupt ends the context of the invocation the caller canceled.
func (s *Session) onInterrupt(m *interruptMsg) {
	s.mu.Lock()
	ctx := s.invs[m.Request]
	s.mu.Unlock()
	if ctx != nil {
		ctx.interrupt()
	}
}

// endInvocations ends the contexts of the invocations in flight, and of
// any started later, as the session ends, and lets the idle workers go.
func (s *Session) endInvocations() {
	s.mu.Lock()
	s.invsEnded = true
	ctxs := make([]*invocationCtx, 0, len(s.invs))
	for _, c := range s.invs {
		ctxs = append(ctxs, c)
	}
	watch := s.watch
	s.mu.Unlock()
	for _, c := range ctxs {
		c.end(context.Canceled)
	}
	s.workers.end()
	if watch != nil {
		watch.Stop()
	}
}

// serve runs inv's handler and writes its answer.
func (s *Session) serve(inv *invocation) {
	defer s.handlers.Done()
	p := inv.p
	e := Invocation{Args: inv.args, Kwargs: inv.kwargs, CallerAuthID: inv.callerAuthID,
		CallerSession: inv.caller, Progress: inv.progress, Trace: inv.trace, s: s, request: inv.request, inv: inv}
	// A fast procedure's handlers are timed one in eight (a slow one among
	// them is found by the watch when it runs on the session's goroutine).
	var start time.Time
	timed := !p.fast() || p.timings.Add(1)%8 == 0
	if timed {
		start = time.Now()
	}
	res, err := p.Handler(inv.ctx, e)
	if timed {
		p.took(time.Since(start))
	}
	if inv.ctx.wasInterrupted() {
		err = &Error{URI: wire.ErrCanceled, Args: []any{"the call was canceled"}}
	}
	var out message
	if err == nil {
		inv.yield = yieldMsg{Request: inv.request, Options: noOptions, Args: res.Args, Kwargs: res.Kwargs}
		out = &inv.yield
	} else {
		out = errorMessage(inv.request, err)
	}
	hold := inv.hold && s.l.fc != nil
	if werr := s.l.writeOrHold(out, hold); werr != nil && !errors.Is(werr, ErrConnectionLost) {
		_ = s.l.writeOrHold(errorMessage(inv.request, werr), hold)
	}
	p.inFlight.Add(-1)
	inv.ctx.end(context.Canceled)
	s.mu.Lock()
	delete(s.invs, inv.request)
	s.mu.Unlock()
	inv.recycle()
}
