package client

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// Invocation is one call of a registered procedure.
type Invocation struct {
	Procedure     string
	Args          []any
	Kwargs        map[string]any
	CallerAuthID  string // the caller's authid when disclosed (on the platform: its serial number)
	CallerSession uint64

	s          *session
	request    wamp.ID
	progressOK bool
}

// Decode decodes the first positional argument (or the keyword arguments
// when there is none) into v, with the rules of Decode.
func (inv *Invocation) Decode(v any) error { return decodePayload(inv.Args, inv.Kwargs, v) }

// SendProgress sends a progressive result to a caller that asked for them;
// it is a no-op for callers that did not.
func (inv *Invocation) SendProgress(ctx context.Context, args ...any) error {
	if !inv.progressOK {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	wargs, kwargs, _, err := splitArgs("SendProgress", inv.Procedure, args, false)
	if err != nil {
		return err
	}
	return inv.s.l.write(&wamp.Yield{Request: inv.request, Options: wamp.Dict{wire.OptProgress: true}, Arguments: wargs, ArgumentsKw: kwargs})
}

// InvocationHandler serves a registered procedure. Its return value becomes
// the result: a *Result sets positional and keyword results, Kwargs sets
// keyword results, nil sends none, anything else is the single positional
// result. A *WampError answers with its URI; any other error with
// wamp.error.runtime_error and the error text. ctx ends when the caller
// cancels, the call times out, or the connection ends.
type InvocationHandler func(ctx context.Context, inv *Invocation) (any, error)

// RegisterOption configures a registration.
type RegisterOption func(*registerSettings)

// registerSettings holds the REGISTER options.
type registerSettings struct{ options map[string]any }

// ForceReregister sets whether a registration takes over the procedure from
// another session holding it (default true, as the platform expects).
func ForceReregister(on bool) RegisterOption {
	return func(s *registerSettings) { s.options[wire.OptForceReregister] = on }
}

// Registration is a registered procedure; it is restored after every
// reconnect until Unregister.
type Registration struct {
	c         *Client
	name      string
	procedure string
	handler   InvocationHandler
	options   wamp.Dict
	removed   atomic.Bool
}

// Procedure returns the full URI.
func (r *Registration) Procedure() string { return r.procedure }

// Name returns the name given at registration.
func (r *Registration) Name() string { return r.name }

// Unregister removes the registration; see Client.Unregister.
func (r *Registration) Unregister(ctx context.Context) error { return r.c.Unregister(ctx, r) }

func (c *Client) register(ctx context.Context, op, name, procedure string, handler InvocationHandler, opts []RegisterOption) (*Registration, error) {
	if handler == nil {
		return nil, invalidArg(op, procedure, "handler is nil")
	}
	rs := registerSettings{options: map[string]any{wire.OptForceReregister: true}}
	for _, o := range opts {
		o(&rs)
	}
	options := wamp.Dict(rs.options)
	if _, err := c.waitSession(ctx, op, procedure, c.set.sessionWait); err != nil {
		return nil, err
	}
	reg := &Registration{c: c, name: name, procedure: procedure, handler: handler, options: options}
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil, opErr(op, procedure, ErrStopped)
	}
	if _, dup := c.regs[procedure]; dup {
		c.mu.Unlock()
		return nil, invalidArg(op, procedure, "already registered by this client")
	}
	c.regs[procedure] = reg
	s := c.cur.Load()
	c.mu.Unlock()

	var err error
	if s == nil || !s.alive() {
		s, err = c.waitSession(ctx, op, procedure, c.set.sessionWait)
	}
	if err == nil {
		err = s.ensureReg(ctx, reg)
	}
	if err != nil {
		c.forgetReg(reg)
		return nil, opErr(op, procedure, err)
	}
	return reg, nil
}

func (c *Client) forgetReg(reg *Registration) bool {
	reg.removed.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.regs[reg.procedure] != reg {
		return false
	}
	delete(c.regs, reg.procedure)
	return true
}

// Unregister removes a registration. Invocations arriving afterwards are
// answered with wamp.error.no_such_procedure.
func (c *Client) Unregister(ctx context.Context, reg *Registration) error {
	const op = "Unregister"
	if reg == nil || reg.c != c {
		return invalidArg(op, "", "not a registration of this client")
	}
	if !c.forgetReg(reg) {
		return nil
	}
	s := c.cur.Load()
	if s == nil || !s.alive() {
		return nil
	}
	return opErr(op, reg.procedure, s.dropReg(ctx, reg))
}

// ensureReg registers reg on this session unless it already is.
func (s *session) ensureReg(ctx context.Context, reg *Registration) error {
	s.mu.Lock()
	_, ok := s.regIDs[reg]
	s.mu.Unlock()
	if ok {
		return nil
	}
	id := s.nextID()
	req := newRequest()
	install := func(m wamp.Message) {
		if rm, ok := m.(*wamp.Registered); ok {
			s.installReg(uint64(rm.Registration), reg)
		}
	}
	req.onReply, req.onLate = install, install
	opts := wamp.Dict{}
	for k, v := range reg.options {
		opts[k] = v
	}
	msg, err := s.roundTrip(ctx, id, &wamp.Register{Request: id, Options: opts, Procedure: wamp.URI(reg.procedure)}, req, s.c.set.responseTimeout)
	if err != nil {
		return err
	}
	if _, ok := msg.(*wamp.Registered); !ok {
		return unexpected(msg, "REGISTERED")
	}
	return nil
}

func (s *session) installReg(regID uint64, reg *Registration) {
	s.mu.Lock()
	s.regs[regID] = reg
	s.regIDs[reg] = regID
	s.mu.Unlock()
	if reg.removed.Load() {
		go func() { _ = s.dropReg(s.ctx, reg) }()
	}
}

func (s *session) dropReg(ctx context.Context, reg *Registration) error {
	s.mu.Lock()
	regID, ok := s.regIDs[reg]
	if ok {
		delete(s.regIDs, reg)
		delete(s.regs, regID)
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	id := s.nextID()
	msg, err := s.roundTrip(ctx, id, &wamp.Unregister{Request: id, Registration: wamp.ID(regID)}, newRequest(), s.c.set.responseTimeout)
	if err != nil {
		return err
	}
	if _, ok := msg.(*wamp.Unregistered); !ok {
		return unexpected(msg, "UNREGISTERED")
	}
	return nil
}

// onRevoked handles UNREGISTERED with request 0: another session took the
// procedure over (force_reregister). The registration stays tracked and is
// registered again at the next reconnect.
func (s *session) onRevoked(m revoked) {
	s.mu.Lock()
	reg := s.regs[m.registration]
	if reg != nil {
		delete(s.regs, m.registration)
		delete(s.regIDs, reg)
	}
	s.mu.Unlock()
	if reg != nil {
		s.c.log.Warn("ironflock: another session took over a registered procedure; it is registered again at the next reconnect", "procedure", reg.procedure)
	}
}

func (s *session) onInvocation(m *wamp.Invocation) {
	s.mu.Lock()
	reg := s.regs[uint64(m.Registration)]
	var st *invocationState
	var ctx context.Context
	if reg != nil {
		st = &invocationState{}
		if ms, ok := wamp.AsInt64(m.Details[wire.OptTimeout]); ok && ms > 0 {
			ctx, st.cancel = context.WithTimeout(s.ctx, time.Duration(ms)*time.Millisecond)
		} else {
			ctx, st.cancel = context.WithCancel(s.ctx)
		}
		s.invs[uint64(m.Request)] = st
		s.handlers.Add(1)
	}
	s.mu.Unlock()
	if reg == nil {
		_ = s.l.write(&wamp.Error{Type: wamp.INVOCATION, Request: m.Request, Details: wamp.Dict{},
			Error: wamp.URI(wire.ErrNoSuchProcedure), Arguments: wamp.List{"the procedure has been unregistered"}})
		return
	}
	go s.serve(ctx, st, reg, m)
}

func (s *session) onInterrupt(m *wamp.Interrupt) {
	s.mu.Lock()
	st := s.invs[uint64(m.Request)]
	s.mu.Unlock()
	if st != nil {
		st.interrupted.Store(true)
		st.cancel()
	}
}

func (s *session) serve(ctx context.Context, st *invocationState, reg *Registration, m *wamp.Invocation) {
	defer s.handlers.Done()
	defer func() {
		st.cancel()
		s.mu.Lock()
		delete(s.invs, uint64(m.Request))
		s.mu.Unlock()
	}()
	inv := &Invocation{Procedure: reg.procedure, Args: []any(m.Arguments), Kwargs: map[string]any(m.ArgumentsKw), s: s, request: m.Request}
	inv.progressOK, _ = m.Details[wire.OptReceiveProgress].(bool)
	inv.CallerAuthID, _ = m.Details["caller_authid"].(string)
	if id, ok := wamp.AsID(m.Details["caller"]); ok {
		inv.CallerSession = uint64(id)
	}
	var res any
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("handler panicked: %v", r)
				s.c.log.Error("ironflock: procedure handler panicked", "procedure", reg.procedure, "panic", fmt.Sprint(r))
			}
		}()
		res, err = reg.handler(ctx, inv)
	}()
	if st.interrupted.Load() {
		err = &WampError{URI: wire.ErrCanceled, Args: []any{"the call was canceled"}}
	}
	var out wamp.Message
	if err == nil {
		args, kwargs, encErr := yieldPayload(res)
		if encErr == nil {
			out = &wamp.Yield{Request: m.Request, Options: wamp.Dict{}, Arguments: args, ArgumentsKw: kwargs}
		} else {
			err = fmt.Errorf("encode result: %w", encErr)
		}
	}
	if err != nil {
		out = errorMessage(m.Request, err)
	}
	if werr := s.l.write(out); werr != nil && !errors.Is(werr, ErrConnectionLost) {
		_ = s.l.write(errorMessage(m.Request, werr))
	}
}

// yieldPayload converts a handler's return value (WIRE.md §2.9).
func yieldPayload(res any) (wamp.List, wamp.Dict, error) {
	switch r := res.(type) {
	case nil:
		return nil, nil, nil
	case *Result:
		if r == nil {
			return nil, nil, nil
		}
		return r.payload()
	case Result:
		return r.payload()
	case Kwargs:
		kw, err := encodeKwargs(r, "result")
		return wamp.List{}, kw, err
	}
	v, err := encodeValue(res, "result")
	if err != nil {
		return nil, nil, err
	}
	return wamp.List{v}, nil, nil
}

func errorMessage(req wamp.ID, err error) *wamp.Error {
	msg := &wamp.Error{Type: wamp.INVOCATION, Request: req, Details: wamp.Dict{}}
	var we *WampError
	if errors.As(err, &we) {
		msg.Error = wamp.URI(we.URI)
		args, aerr := encodeValue(we.Args, "error.args")
		kwargs, kerr := encodeValue(we.Kwargs, "error.kwargs")
		if aerr == nil && kerr == nil {
			if l, ok := args.([]any); ok {
				msg.Arguments = l
			}
			if d, ok := kwargs.(map[string]any); ok {
				msg.ArgumentsKw = d
				if msg.Arguments == nil {
					msg.Arguments = wamp.List{}
				}
			}
			return msg
		}
	}
	if msg.Error == "" {
		msg.Error = wamp.URI(wire.ErrRuntimeError)
	}
	msg.Arguments = wamp.List{err.Error()}
	return msg
}
