// This file holds Call: a CALL with its options, progressive results, and
// CANCEL when the caller gives up.

package engine

import (
	"context"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// CallOptions configures a Call.
type CallOptions struct {
	// Timeout, when positive, is announced to the router and the callee
	// (options.timeout in milliseconds). The caller bounds ctx itself.
	Timeout time.Duration
	// DiscloseMe asks the router to disclose the caller to the callee.
	DiscloseMe bool
	// Progress, when set, asks for progressive results and receives each
	// one, in order, on the calling goroutine, before Call returns.
	Progress func(Payload)
	// Decode, when set, reads the final result's payload straight from the
	// message, on the calling goroutine, with a Reader at its start:
	// Call then returns an empty Payload and Decode's error. (Progressive
	// results still come as Payloads.)
	Decode func(r *Reader) error
	// Sent, when set, receives the size of the CALL as written.
	Sent *int
}

// emptyList is the empty positional arguments: shared, never modified.
var emptyList = []any{}

// copyArgs returns a copy of args kept with req (nil stays nil, empty
// stays empty), so that the caller's list stays its own: a variadic one
// stays on its stack.
func (req *request) copyArgs(args []any) []any {
	switch {
	case args == nil:
		return nil
	case len(args) == 0:
		return emptyList
	}
	req.args = append(req.args[:0], args...)
	return req.args
}

// noOptions are the options or details of a message without any (a CALL,
// a YIELD): shared, never modified.
var noOptions = map[string]any{}

// Call calls procedure and returns its result; an ERROR answer is an
// *Error. It waits as long as ctx allows (no response timeout: a call
// takes as long as its callee); when ctx ends first, CANCEL is sent in the
// background and ctx's error returned.
func (s *Session) Call(ctx context.Context, procedure string, args []any, kwargs map[string]any, opts CallOptions) (Payload, error) {
	return s.CallTraced(ctx, procedure, args, kwargs, opts, Trace{})
}

// CallTraced is Call with tr, when set, in the CALL's options. (tr is not
// among opts: its texts go into the message, which would make opts, and
// the closures it holds, escape.)
func (s *Session) CallTraced(ctx context.Context, procedure string, args []any, kwargs map[string]any, opts CallOptions, tr Trace) (Payload, error) {
	id := s.nextID()
	options := noOptions
	if opts.Timeout > 0 || opts.DiscloseMe || opts.Progress != nil {
		options = map[string]any{}
	}
	if opts.Timeout > 0 {
		options[wire.OptTimeout] = opts.Timeout.Milliseconds()
	}
	if opts.DiscloseMe {
		options[wire.OptDiscloseMe] = true
	}
	req := newRequest()
	if opts.Progress != nil {
		options[wire.OptReceiveProgress] = true
		req.progress = newMailbox[*resultMsg]()
	}
	req.raw = opts.Decode != nil
	req.call = callMsg{Request: id, Options: traceOptions(options, tr), Procedure: procedure, Args: req.copyArgs(args), Kwargs: kwargs}
	n, err := s.sendSized(id, &req.call, req)
	if err != nil {
		return Payload{}, err
	}
	if opts.Sent != nil {
		*opts.Sent = n
	}
	var deliver func()
	if req.progress != nil {
		deliver = func() {
			for {
				r, ok := req.progress.take()
				if !ok {
					return
				}
				opts.Progress(Payload{Args: r.Args, Kwargs: r.Kwargs})
			}
		}
	}
	m, err := s.wait(ctx, id, req, 0, deliver)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && err == ctxErr {
			go func() {
				_ = s.l.write(&cancelMsg{Request: id, Options: map[string]any{"mode": "killnowait"}})
			}()
		}
		return Payload{}, err
	}
	var res Payload
	if r, ok := m.(*resultMsg); ok && req.raw {
		req.reader.reset(r.raw)
		err = opts.Decode(&req.reader)
	} else {
		res, err = resultOf(m)
	}
	s.recycle(req)
	return res, err
}

// resultOf turns the final answer to a CALL into its result or error.
func resultOf(m message) (Payload, error) {
	switch r := m.(type) {
	case *resultMsg:
		return Payload{Args: r.Args, Kwargs: r.Kwargs}, nil
	case *errorMsg:
		return Payload{}, errorFromMessage(r)
	}
	return Payload{}, unexpected(m, "RESULT")
}
