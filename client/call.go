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
type CallOption interface{ applyCall(*callSettings) }

type callSettings struct {
	timeout    time.Duration
	progress   func(*Result)
	discloseMe bool
	waitReg    time.Duration // WaitForRegistration; 0: no retries
}

type callOption func(*callSettings)

func (f callOption) applyCall(s *callSettings) { f(s) }

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

// Call calls the procedure uri and returns its result. Arguments are
// positional; a Kwargs value among them becomes keyword arguments, and
// CallOption values (Timeout, Progress, DiscloseMe, WaitForRegistration)
// configure the call. No
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
	wargs, kwargs, opts, err := splitArgs[CallOption](op, uri, args)
	if err != nil {
		return nil, nil, cs, err
	}
	for _, o := range opts {
		o.applyCall(&cs)
	}
	if cs.timeout < 0 {
		return nil, nil, cs, invalidArg(op, uri, "negative timeout %s", durationText(cs.timeout))
	}
	if cs.waitReg < 0 {
		return nil, nil, cs, invalidArg(op, uri, "negative wait for the registration %s", durationText(cs.waitReg))
	}
	return wargs, kwargs, cs, nil
}

// call makes one CALL of an encoded payload.
func (c *Client) call(ctx context.Context, op, uri string, args []any, kwargs map[string]any, cs callSettings, wait time.Duration) (*Result, error) {
	if cs.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cs.timeout)
		defer cancel()
	}
	s, err := c.waitSession(ctx, op, uri, wait)
	if err != nil {
		return nil, err
	}
	opts := engine.CallOptions{Timeout: cs.timeout, DiscloseMe: cs.discloseMe}
	if cs.progress != nil {
		opts.Progress = func(p engine.Payload) { cs.progress(&Result{Args: p.Args, Kwargs: p.Kwargs}) }
	}
	res, err := s.Call(ctx, uri, args, kwargs, opts)
	if err != nil {
		return nil, wampError(err)
	}
	return &Result{Args: res.Args, Kwargs: res.Kwargs}, nil
}
