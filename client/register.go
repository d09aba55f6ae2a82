// This file holds device-function registrations on the client side:
// Registration, Invocation and the handler adapter that turns a handler
// result or error into the engine's answer.

package client

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
	"github.com/flockgo/ironflock/internal/wire"
)

// Invocation is one call of a registered procedure.
type Invocation struct {
	Procedure     string
	Args          []any
	Kwargs        map[string]any
	CallerAuthID  string // the caller's authid when disclosed (on the platform: its serial number)
	CallerSession uint64

	e engine.Invocation
	// lazy: the arguments are read by Decode from the message (LazyArgs),
	// until the handler has returned (answered).
	lazy     bool
	answered atomic.Bool
}

// Decode decodes the first positional argument (or the keyword arguments
// when there is none) into v, with the rules of Decode. For a registration
// with LazyArgs it decodes them straight from the message, which it can
// do while the handler runs, not after.
func (inv *Invocation) Decode(v any) error {
	if !inv.lazy {
		return decodePayload(inv.Args, inv.Kwargs, v)
	}
	if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || rv.IsNil() {
		return fmt.Errorf("%w: decode needs a non-nil pointer, got %T", ErrInvalidArgument, v)
	}
	if inv.answered.Load() {
		return fmt.Errorf("%w: the invocation of %s was answered: with LazyArgs, decode its arguments while the handler runs", ErrInvalidArgument, inv.Procedure)
	}
	return inv.e.Decode(func(r *engine.Reader) error { return decodePayloadRaw(r, v) })
}

// SendProgress sends a progressive result to a caller that asked for them;
// it is a no-op for callers that did not.
func (inv *Invocation) SendProgress(ctx context.Context, args ...any) error {
	if !inv.e.Progress {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	wargs, kwargs, err := splitArgs[noOptions]("SendProgress", inv.Procedure, args, nil)
	if err != nil {
		return err
	}
	return inv.e.SendProgress(wargs, kwargs)
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

// registerSettings holds the REGISTER options and the invocation limit.
type registerSettings struct {
	// options are the REGISTER options: a base shared by registrations
	// (read only) until setOption makes them the registration's own.
	options map[string]any
	owned   bool
	limit   int // 0: the client's WithInvocationLimit
	lazy    bool
	err     error
}

// LazyArgs leaves an invocation's arguments in its message for the handler
// to decode with Invocation.Decode, straight into its own value, while it
// runs: Args and Kwargs stay nil. A handler that decodes its arguments
// into a struct then costs no map[string]any, []any or boxed value of
// theirs.
func LazyArgs() RegisterOption {
	return func(s *registerSettings) { s.lazy = true }
}

// ForceReregister sets whether a registration takes over the procedure from
// another session holding it (default true for device functions, as the
// platform expects; unset for RegisterProcedure).
func ForceReregister(on bool) RegisterOption {
	return func(s *registerSettings) { s.setOption(wire.OptForceReregister, on) }
}

// setOption sets a REGISTER option, on a copy of the shared base the
// first time.
func (s *registerSettings) setOption(name string, v any) {
	if !s.owned {
		own := make(map[string]any, len(s.options)+1)
		for k, x := range s.options {
			own[k] = x
		}
		s.options, s.owned = own, true
	}
	s.options[name] = v
}

// The REGISTER options registrations start from, shared and read only: a
// device function's (the platform expects it to take the procedure over)
// and a procedure's.
var (
	deviceFunctionOptions = map[string]any{wire.OptForceReregister: true}
	procedureOptions      = map[string]any{}
)

// Registration is a registered procedure; it is restored after every
// reconnect until Unregister.
type Registration struct {
	c       *Client
	name    string
	handler InvocationHandler
	proc    *engine.Procedure // the same on every session
}

// Procedure returns the full URI.
func (r *Registration) Procedure() string { return r.proc.URI }

// Name returns the name given at registration (the full URI for
// RegisterProcedure).
func (r *Registration) Name() string { return r.name }

// InFlight returns the number of invocations whose handlers are running.
func (r *Registration) InFlight() int { return r.proc.InFlight() }

// Refused returns the number of invocations answered with
// wamp.error.unavailable because InFlight had reached the registration's
// limit (see InvocationLimit).
func (r *Registration) Refused() uint64 { return r.proc.Refused() }

// Unregister removes the registration; see Client.Unregister.
func (r *Registration) Unregister(ctx context.Context) error { return r.c.Unregister(ctx, r) }

// RegisterProcedure registers handler as the procedure with the full URI
// procedure, for routers other than the platform or procedures outside the
// device-function scheme. It is restored after every reconnect until
// Unregister, like a device function. REGISTER carries no options unless
// given (ForceReregister(true) takes the procedure over from another
// session, on routers that support it).
func (c *Client) RegisterProcedure(ctx context.Context, procedure string, handler InvocationHandler, opts ...RegisterOption) (*Registration, error) {
	const op = "RegisterProcedure"
	if err := checkTopic(op, procedure, false); err != nil {
		return nil, err
	}
	return c.register(ctx, op, procedure, procedure, handler, procedureOptions, opts)
}

// register registers handler as procedure with the REGISTER options base
// (shared: never changed) changed by opts, and tracks it for the restore after reconnects.
func (c *Client) register(ctx context.Context, op, name, procedure string, handler InvocationHandler, base map[string]any, opts []RegisterOption) (*Registration, error) {
	if handler == nil {
		return nil, invalidArg(op, procedure, "handler is nil")
	}
	rs := registerSettings{options: base}
	for _, o := range opts {
		o(&rs)
	}
	if rs.err != nil {
		return nil, invalidArg(op, procedure, "%s", rs.err)
	}
	if rs.limit == 0 {
		rs.limit = c.set.invocationLimit
	}
	if _, err := c.waitSession(ctx, op, procedure, c.set.sessionWait); err != nil {
		return nil, err
	}
	reg := &Registration{c: c, name: name, handler: handler}
	warn := c.overloadWarning("ironflock: a registered procedure has its limit of invocations in flight; refusing new ones with "+wire.ErrUnavailable, "procedure", procedure, "limit", rs.limit)
	reg.proc = &engine.Procedure{URI: procedure, Options: rs.options, Handler: reg.serve, Limit: rs.limit,
		OnRefuse: func(refused uint64) { warn("refused", refused) }, Raw: rs.lazy}
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil, opErr(op, procedure, ErrStopped)
	}
	if c.regLocked(procedure) != nil {
		c.mu.Unlock()
		return nil, invalidArg(op, procedure, "already registered by this client")
	}
	c.regs = append(c.regs, reg)
	s := c.cur.Load()
	c.mu.Unlock()

	var err error
	if s == nil || !s.Alive() {
		s, err = c.waitSession(ctx, op, procedure, c.set.sessionWait)
	}
	if err == nil {
		err = wampError(s.Register(ctx, reg.proc))
	}
	if err != nil {
		c.forgetReg(reg)
		return nil, opErr(op, procedure, err)
	}
	return reg, nil
}

// regLocked returns the registration of procedure, nil when there is
// none; c.mu is held. Registrations are few and looked up by operations
// only.
func (c *Client) regLocked(procedure string) *Registration {
	for _, r := range c.regs {
		if r.proc.URI == procedure {
			return r
		}
	}
	return nil
}

// forgetReg stops tracking reg; it reports false when reg was not tracked.
func (c *Client) forgetReg(reg *Registration) bool {
	reg.proc.Retire()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.regLocked(reg.proc.URI) != reg {
		return false
	}
	c.regs = without(c.regs, reg)
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
	if s == nil || !s.Alive() {
		return nil
	}
	return opErr(op, reg.proc.URI, wampError(s.Unregister(ctx, reg.proc)))
}

// serve runs the handler for one invocation: a panic becomes an error, the
// result is encoded for the YIELD, and an error for the ERROR.
func (reg *Registration) serve(ctx context.Context, e engine.Invocation) (engine.Payload, error) {
	c := reg.c
	if e.Trace.Parent != "" {
		ctx = c.continued(ctx, e.Trace)
	}
	if !c.obs.processing() {
		return reg.run(ctx, e)
	}
	op := Op{Kind: OpInvocation, URI: reg.proc.URI, Template: c.template(reg.proc.URI)}
	ctx = c.obs.startProcess(ctx, op)
	start := time.Now()
	p, err := reg.run(ctx, e)
	out := Outcome{Latency: time.Since(start), Err: err}
	for _, h := range c.obs.invocation {
		h.OnInvocation(ctx, op, out)
	}
	c.obs.refused(op, err)
	return p, err
}

// run runs the handler for one invocation.
func (reg *Registration) run(ctx context.Context, e engine.Invocation) (engine.Payload, error) {
	inv := &Invocation{Procedure: reg.proc.URI, Args: e.Args, Kwargs: e.Kwargs, CallerAuthID: e.CallerAuthID,
		CallerSession: e.CallerSession, e: e, lazy: reg.proc.Raw}
	var res any
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("handler panicked: %v", r)
				reg.c.log.Error("ironflock: procedure handler panicked", "procedure", reg.proc.URI, "panic", fmt.Sprint(r))
			}
		}()
		res, err = reg.handler(ctx, inv)
	}()
	inv.answered.Store(true)
	if err == nil {
		p, encErr := yieldPayload(res, e)
		if encErr == nil {
			return p, nil
		}
		err = fmt.Errorf("encode result: %w", encErr)
	}
	return engine.Payload{}, invocationError(err)
}

// yieldPayload converts a handler's return value (docs/wire.md §7.9); a
// single result is kept with the invocation e (a struct written straight
// into the message).
func yieldPayload(res any, e engine.Invocation) (engine.Payload, error) {
	switch r := res.(type) {
	case nil:
		return engine.Payload{}, nil
	case *Result:
		if r == nil {
			return engine.Payload{}, nil
		}
		args, kwargs, err := r.payload()
		return engine.Payload{Args: args, Kwargs: kwargs}, err
	case Result:
		args, kwargs, err := r.payload()
		return engine.Payload{Args: args, Kwargs: kwargs}, err
	case Kwargs:
		kw, err := encodeKwargs(r, "result")
		return engine.Payload{Args: []any{}, Kwargs: kw}, err
	}
	if wireArg(res) {
		return engine.Payload{Args: e.One(res)}, nil
	}
	if directStruct(res) {
		args, err := e.EncodeOne(func(w *engine.Encoder) error {
			re := rawEncoder{root: "result"}
			return re.value(w, reflect.ValueOf(res))
		})
		return engine.Payload{Args: args}, err
	}
	v, err := encodeValue(res, "result")
	if err != nil {
		return engine.Payload{}, err
	}
	return engine.Payload{Args: e.One(v)}, nil
}

// invocationError turns a handler's error into the engine's answer: a
// *WampError keeps its URI and payload (its text replaces a payload that
// cannot be encoded); any other error answers wamp.error.runtime_error.
func invocationError(err error) error {
	var we *WampError
	if !errors.As(err, &we) {
		return err
	}
	args, aerr := encodeValue(we.Args, "error.args")
	kwargs, kerr := encodeValue(we.Kwargs, "error.kwargs")
	if aerr != nil || kerr != nil {
		if we.URI == "" {
			return err
		}
		return &engine.Error{URI: we.URI, Args: []any{err.Error()}}
	}
	e := &engine.Error{URI: we.URI}
	e.Args, _ = args.([]any)
	e.Kwargs, _ = kwargs.(map[string]any)
	return e
}
