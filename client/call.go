// This file holds calls on the client side: Call, its options and Result.

package client

import (
	"context"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// Result is the answer to a call.
type Result struct {
	Args   []any
	Kwargs map[string]any
}

// Decode decodes the first positional result (or the keyword results when
// there is none) into v, with the rules of Decode.
func (r *Result) Decode(v any) error { return decodePayload(r.Args, r.Kwargs, v) }

// payload encodes a Result returned by a procedure handler.
func (r Result) payload() ([]any, map[string]any, error) {
	var args []any
	if r.Args != nil {
		v, err := encodeValue(r.Args, "result.args")
		if err != nil {
			return nil, nil, err
		}
		args = v.([]any)
	}
	kwargs, err := encodeKwargs(r.Kwargs, "result.kwargs")
	if err != nil {
		return nil, nil, err
	}
	if kwargs != nil && args == nil {
		args = []any{}
	}
	return args, kwargs, nil
}

// CallOption changes how a call is made; pass it among the arguments of
// Call or CallDeviceFunction.
type CallOption interface {
	// applyCall returns s with the option applied (by value: the settings
	// of a call stay on its stack).
	applyCall(s callSettings) callSettings
}

type callSettings struct {
	timeout    time.Duration
	progress   func(*Result)
	discloseMe bool
	waitReg    time.Duration // WaitForRegistration; 0: no retries
	into       any           // Into's pointer; nil: none
	intoNil    bool          // Into was given a nil pointer
	table      string        // the table of a data-backend call, for the hooks
}

type callOption func(*callSettings)

func (f callOption) applyCall(s callSettings) callSettings {
	f(&s)
	return s
}

// Timeout bounds the call: the router and the callee are told, and the call
// is canceled when it elapses.
func Timeout(d time.Duration) CallOption {
	return callOption(func(s *callSettings) { s.timeout = d })
}

// Progress asks for progressive results and hands each one to fn, in order,
// on the calling goroutine, before Call returns the final result.
func Progress(fn func(*Result)) CallOption {
	return callOption(func(s *callSettings) { s.progress = fn })
}

// DiscloseMe asks the router to disclose the caller's identity to the callee.
func DiscloseMe() CallOption {
	return callOption(func(s *callSettings) { s.discloseMe = true })
}

// Into decodes the call's result into the value dst points to, as
// Result.Decode would (the first positional result, or the keyword results
// when there is none), straight from the message: the Result returned then
// carries no Args or Kwargs. A value that does not decode fails the call
// with the decoding error. Progressive results still come as Results.
func Into[T any](dst *T) CallOption { return intoOption[T]{dst} }

// intoOption is Into's option: one pointer, so that it is passed without
// an allocation.
type intoOption[T any] struct{ dst *T }

func (o intoOption[T]) applyCall(s callSettings) callSettings {
	s.into, s.intoNil = o.dst, o.dst == nil
	return s
}

// Call calls the procedure uri and returns its result. Arguments are
// positional; a Kwargs value among them becomes keyword arguments, and
// CallOption values (Timeout, Progress, DiscloseMe, WaitForRegistration,
// Into) configure the call. No
// device metadata is added. Canceling ctx sends CANCEL to the router. While
// disconnected, Call waits for a session (10 s by default) and then fails
// with ErrNotConnected. A refusal is a *WampError inside the returned error.
func (c *Client) Call(ctx context.Context, uri string, args ...any) (*Result, error) {
	const op = "Call"
	if err := checkTopic(op, uri, false); err != nil {
		return nil, err
	}
	wargs, kwargs, cs, err := callArgs(op, uri, args)
	if err != nil {
		return nil, err
	}
	res, err := c.callWaiting(ctx, op, uri, wargs, kwargs, cs)
	return res, opErr(op, uri, err)
}

// callArgs splits and encodes the arguments of a call and applies its
// CallOptions.
func callArgs(op, uri string, args []any) ([]any, map[string]any, callSettings, error) {
	var cs callSettings
	wargs, kwargs, err := splitArgs(op, uri, args, func(o CallOption) { cs = o.applyCall(cs) })
	if err != nil {
		return nil, nil, cs, err
	}
	if cs.timeout < 0 {
		return nil, nil, cs, invalidArg(op, uri, "negative timeout %s", durationText(cs.timeout))
	}
	if cs.waitReg < 0 {
		return nil, nil, cs, invalidArg(op, uri, "negative wait for the registration %s", durationText(cs.waitReg))
	}
	if cs.intoNil {
		return nil, nil, cs, invalidArg(op, uri, "Into needs a non-nil pointer")
	}
	return wargs, kwargs, cs, nil
}

// call makes one CALL of an encoded payload.
// With hooks it tells them, and with trace propagation it sends the trace
// context of ctx.
func (c *Client) call(ctx context.Context, op, uri string, args []any, kwargs map[string]any, cs callSettings, wait time.Duration) (*Result, error) {
	if !c.obs.traffic() {
		return c.callOnce(ctx, op, uri, args, kwargs, cs, wait, nil)
	}
	start := time.Now()
	desc := c.opOf(op, uri, cs.table)
	ctx = c.obs.startSend(ctx, desc)
	var sent int
	res, err := c.callOnce(ctx, op, uri, args, kwargs, cs, wait, &sent)
	c.obs.sent(ctx, desc, Outcome{Bytes: sent, Latency: time.Since(start), Err: err})
	return res, err
}

// callOnce makes the call; sent, when set, receives the size of the CALL.
func (c *Client) callOnce(ctx context.Context, op, uri string, args []any, kwargs map[string]any, cs callSettings, wait time.Duration, sent *int) (*Result, error) {
	if cs.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cs.timeout)
		defer cancel()
	}
	s, err := c.waitSession(ctx, op, uri, wait)
	if err != nil {
		return nil, err
	}
	opts := engine.CallOptions{Timeout: cs.timeout, DiscloseMe: cs.discloseMe, Sent: sent}
	var tr engine.Trace
	if c.set.tracer != nil {
		tr = c.traceOf(ctx)
	}
	if cs.progress != nil {
		opts.Progress = func(p engine.Payload) { cs.progress(&Result{Args: p.Args, Kwargs: p.Kwargs}) }
	}
	if cs.into != nil {
		opts.Decode = func(r *engine.Reader) error { return decodePayloadRaw(r, cs.into) }
	}
	c.stats.pendingCalls.Add(1)
	res, err := s.CallTraced(ctx, uri, args, kwargs, opts, tr)
	c.stats.pendingCalls.Add(-1)
	if err != nil {
		return nil, wampError(err)
	}
	return &Result{Args: res.Args, Kwargs: res.Kwargs}, nil
}
