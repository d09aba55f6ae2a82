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
}

// noOptions are the options or details of a message without any (a CALL,
// a YIELD): shared, never modified.
var noOptions = map[string]any{}

// Call calls procedure and returns its result; an ERROR answer is an
// *Error. It waits as long as ctx allows (no response timeout: a call
// takes as long as its callee); when ctx ends first, CANCEL is sent in the
// background and ctx's error returned.
func (s *Session) Call(ctx context.Context, procedure string, args []any, kwargs map[string]any, opts CallOptions) (Payload, error) {
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
	msg := &callMsg{Request: id, Options: options, Procedure: procedure, Args: args, Kwargs: kwargs}
	if err := s.send(id, msg, req); err != nil {
		return Payload{}, err
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
	return resultOf(m)
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
