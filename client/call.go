package client

import (
	"context"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
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
func (r Result) payload() (wamp.List, wamp.Dict, error) {
	var args wamp.List
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
		args = wamp.List{}
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
// CallOption values (Timeout, Progress, DiscloseMe) configure the call. No
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
	res, err := c.call(ctx, op, uri, wargs, kwargs, cs, c.set.sessionWait)
	return res, opErr(op, uri, err)
}

// callArgs splits and encodes the arguments of a call and applies its
// CallOptions.
func callArgs(op, uri string, args []any) (wamp.List, wamp.Dict, callSettings, error) {
	var cs callSettings
	wargs, kwargs, opts, err := splitArgs(op, uri, args, true)
	if err != nil {
		return nil, nil, cs, err
	}
	for _, o := range opts {
		o.applyCall(&cs)
	}
	if cs.timeout < 0 {
		return nil, nil, cs, invalidArg(op, uri, "negative timeout %v", cs.timeout)
	}
	return wargs, kwargs, cs, nil
}

// call makes one CALL of an encoded payload.
func (c *Client) call(ctx context.Context, op, uri string, args wamp.List, kwargs wamp.Dict, cs callSettings, wait time.Duration) (*Result, error) {
	if cs.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cs.timeout)
		defer cancel()
	}
	s, err := c.waitSession(ctx, op, uri, wait)
	if err != nil {
		return nil, err
	}
	return s.call(ctx, uri, args, kwargs, cs)
}

func (s *session) call(ctx context.Context, uri string, args wamp.List, kwargs wamp.Dict, cs callSettings) (*Result, error) {
	id := s.nextID()
	options := wamp.Dict{}
	if cs.timeout > 0 {
		options[wire.OptTimeout] = cs.timeout.Milliseconds()
	}
	if cs.discloseMe {
		options[wire.OptDiscloseMe] = true
	}
	req := newRequest()
	var progress <-chan struct{}
	if cs.progress != nil {
		options[wire.OptReceiveProgress] = true
		req.progress = newMailbox[*wamp.Result]()
		progress = req.progress.ready
	}
	msg := &wamp.Call{Request: id, Options: options, Procedure: wamp.URI(uri), Arguments: args, ArgumentsKw: kwargs}
	if err := s.send(id, msg, req); err != nil {
		return nil, err
	}
	deliver := func() {
		if req.progress == nil {
			return
		}
		for {
			r, ok := req.progress.take()
			if !ok {
				return
			}
			cs.progress(&Result{Args: []any(r.Arguments), Kwargs: map[string]any(r.ArgumentsKw)})
		}
	}
	for {
		select {
		case m := <-req.ch:
			deliver()
			return resultOf(m)
		case <-progress:
			deliver()
		case <-s.l.closed:
			select {
			case m := <-req.ch:
				deliver()
				return resultOf(m)
			default:
			}
			return nil, s.lostErr()
		case <-ctx.Done():
			s.giveUp(id, req)
			go func() {
				_ = s.l.write(&wamp.Cancel{Request: id, Options: wamp.Dict{"mode": wamp.CancelModeKillNoWait}})
			}()
			return nil, ctx.Err()
		case <-s.c.stopCh:
			s.giveUp(id, req)
			return nil, ErrStopped
		}
	}
}

func resultOf(m wamp.Message) (*Result, error) {
	switch r := m.(type) {
	case *wamp.Result:
		return &Result{Args: []any(r.Arguments), Kwargs: map[string]any(r.ArgumentsKw)}, nil
	case *wamp.Error:
		return nil, errorFromMessage(r)
	}
	return nil, unexpected(m, "RESULT")
}
