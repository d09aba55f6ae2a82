// This file holds the callee side of a Session: Procedure, Invocation,
// Register, Unregister, revocations and refusals. Serving an INVOCATION is
// in invocation.go.

package engine

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync/atomic"

	"github.com/flockgo/ironflock/internal/wire"
)

// Invocation is one INVOCATION of a registered procedure.
type Invocation struct {
	Args   []any
	Kwargs map[string]any
	// CallerAuthID and CallerSession identify the caller when the router
	// disclosed it.
	CallerAuthID  string
	CallerSession uint64
	// Progress reports whether the caller asked for progressive results.
	Progress bool
	// Trace is the trace context the router forwarded in the details.
	Trace Trace

	s       *Session
	request uint64
	inv     *invocation
}

// Decode reads the payload of an invocation of a Raw procedure with fn,
// given a Reader at its start, and returns fn's error. It may be called
// while the handler runs, not after.
func (inv Invocation) Decode(fn func(r *Reader) error) error {
	st := inv.inv
	st.reader.reset(st.raw)
	return fn(&st.reader)
}

// One returns a list of v alone, kept with the invocation until its answer
// is written: a handler's single result without a list of its own.
func (inv Invocation) One(v any) []any {
	inv.inv.one[0] = v
	return inv.inv.one[:]
}

// EncodeOne writes the handler's single result with fn, given an Encoder
// in the link's format, into a buffer kept with the invocation, and
// returns it as the list of the YIELD's positional results; fn's error, or
// the Encoder's, is returned instead.
func (inv Invocation) EncodeOne(fn func(e *Encoder) error) ([]any, error) {
	st := inv.inv
	st.enc.reset(st.encBuf, inv.s.l.json)
	err := fn(&st.enc)
	st.encBuf = st.enc.b
	if err == nil {
		err = st.enc.Err()
	}
	if err != nil {
		return nil, err
	}
	st.value.b = st.enc.b
	return inv.One(&st.value), nil
}

// SendProgress sends a progressive result; it is a no-op when the caller
// did not ask for them.
func (inv Invocation) SendProgress(args []any, kwargs map[string]any) error {
	if !inv.Progress {
		return nil
	}
	err := inv.s.l.write(&yieldMsg{Request: inv.request, Options: progressOptions, Args: args, Kwargs: kwargs})
	if err == ErrConnectionLost {
		return inv.s.lost(false)
	}
	return err
}

// progressOptions are the options of a progressive YIELD: shared, never
// modified.
var progressOptions = map[string]any{wire.OptProgress: true}

// InvocationHandler serves an invocation on a goroutine of its own (one
// kept for the next invocation once it has answered), or, when its
// handlers have been fast, on the session's goroutine (inline.go). The
// payload it returns is the YIELD; an error answers with an ERROR: an
// *Error with its URI and payload, any other error with
// wamp.error.runtime_error and the error text. ctx ends when the caller
// cancels, the call's timeout elapses, or the session ends.
type InvocationHandler func(ctx context.Context, inv Invocation) (Payload, error)

// Procedure is a registration its owner keeps across sessions and hands to
// each new Session; a Session registers it at most once. Its fields must
// not change once it has been registered.
type Procedure struct {
	// URI is the procedure.
	URI string
	// Options are the REGISTER options (force_reregister, …).
	Options map[string]any
	// Handler serves the invocations.
	Handler InvocationHandler
	// Limit bounds the invocations in flight (handlers running, on every
	// session of the owner); an INVOCATION arriving at the limit is answered
	// at once with wamp.error.unavailable and counted. 0 is unbounded.
	Limit int
	// OnRefuse, if not nil, is called on the session's reader with the
	// number refused so far each time an invocation is refused at the
	// limit, before the refusal is sent: it must not block.
	OnRefuse func(refused uint64)
	// Raw hands the handler the payload encoded, to read with
	// Invocation.Decode, instead of Args and Kwargs.
	Raw bool

	retired  atomic.Bool
	inFlight atomic.Int64
	refused  atomic.Uint64
	// handlerNanos is the moving average of its handlers' times, plus one
	// (0: none yet), timings counts its invocations while it is fast: see
	// inline.go.
	handlerNanos atomic.Int64
	timings      atomic.Uint32
}

// Retire marks p as no longer wanted: a Session whose REGISTERED for p
// arrives afterwards unregisters it again at once.
func (p *Procedure) Retire() { p.retired.Store(true) }

// InFlight returns the number of p's invocations whose handlers are
// running.
func (p *Procedure) InFlight() int { return int(p.inFlight.Load()) }

// Refused returns the number of invocations refused at p's Limit.
func (p *Procedure) Refused() uint64 { return p.refused.Load() }

// Register registers p on this session unless it already is. The
// registration is installed on the reader as REGISTERED arrives, so no
// invocation behind it is lost; one arriving after ctx ended is still
// installed (and removed again if p was retired meanwhile).
func (s *Session) Register(ctx context.Context, p *Procedure) error {
	if bound(s, s.regs, p) {
		return nil
	}
	id := s.nextID()
	opts := map[string]any{}
	for k, v := range p.Options {
		opts[k] = v
	}
	return s.establish(ctx, id, &registerMsg{Request: id, Options: opts, Procedure: p.URI}, mtRegistered, func(regID uint64) {
		bind(s, s.regs, regID, p)
		if p.retired.Load() {
			go func() { _ = s.Unregister(s.ctx, p) }()
		}
	})
}

// Unregister removes p's registration from this session; invocations
// arriving afterwards are answered with wamp.error.no_such_procedure. A p
// this session does not carry is a no-op.
func (s *Session) Unregister(ctx context.Context, p *Procedure) error {
	regID, ok := unbind(s, s.regs, p)
	if !ok {
		return nil
	}
	id := s.nextID()
	return s.expect(ctx, id, &unregisterMsg{Request: id, Registration: regID}, newRequest(), mtUnregistered)
}

// onRevoked handles UNREGISTERED with request 0: another session took the
// procedure over (force_reregister). The owner still tracks it and
// registers it again on its next session.
func (s *Session) onRevoked(registration uint64) {
	s.mu.Lock()
	p := s.regs[registration]
	if p != nil {
		delete(s.regs, registration)
	}
	s.mu.Unlock()
	if p != nil {
		s.log.Warn("ironflock: another session took over a registered procedure; it is registered again at the next reconnect", "procedure", p.URI)
	}
}

// refuse answers an invocation of p, which has Limit invocations in
// flight, with wamp.error.unavailable, once it counted it and told
// OnRefuse: the caller, who may act on the refusal at once, never learns
// of it before the owner does.
func (s *Session) refuse(p *Procedure, m *invocationMsg) {
	n := p.refused.Add(1)
	if p.OnRefuse != nil {
		p.OnRefuse(n)
	}
	_ = s.l.write(errorMessage(m.Request, &Error{URI: wire.ErrUnavailable,
		Args: []any{fmt.Sprintf("%s is busy: %d invocations in flight, the limit", p.URI, p.Limit)}}))
}

// errorMessage answers an invocation with err: an *Error keeps its URI and
// payload (with an empty args slot before kwargs), any other error becomes
// wamp.error.runtime_error with its text.
func errorMessage(req uint64, err error) *errorMsg {
	msg := &errorMsg{Type: mtInvocation, Request: req, Details: map[string]any{}}
	var e *Error
	if errors.As(err, &e) {
		msg.Error, msg.Args, msg.Kwargs = e.URI, e.Args, e.Kwargs
		if msg.Kwargs != nil && msg.Args == nil {
			msg.Args = []any{}
		}
		return msg
	}
	msg.Error = wire.ErrRuntimeError
	msg.Args = []any{err.Error()}
	return msg
}

// detailInt reads a whole number of a message's details: an integer, or a
// float without fraction, as a router written in JavaScript may send one.
func detailInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return int64(x), true
		}
	}
	return 0, false
}
