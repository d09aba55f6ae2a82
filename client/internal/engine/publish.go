// This file holds Publish: an acknowledged PUBLISH.

package engine

import (
	"context"

	"github.com/flockgo/ironflock/internal/wire"
)

// Payload is the positional and keyword arguments of a message, in wire
// form (see the client's encoder).
type Payload struct {
	Args   []any
	Kwargs map[string]any
}

// ackOptions are the options of every PUBLISH: shared, never modified.
var ackOptions = map[string]any{wire.OptAcknowledge: true}

// PublishOptions configures PublishWith.
type PublishOptions struct {
	// Trace, when set, rides in the PUBLISH's options.
	Trace Trace
	// Sent, when set, receives the size of the PUBLISH as written.
	Sent *int
}

// Publish publishes args and kwargs to topic and waits for the router's
// acknowledgement (PUBLISHED) within ctx and the response timeout.
func (s *Session) Publish(ctx context.Context, topic string, args []any, kwargs map[string]any) error {
	return s.PublishWith(ctx, topic, args, kwargs, PublishOptions{})
}

// PublishWith is Publish with options.
func (s *Session) PublishWith(ctx context.Context, topic string, args []any, kwargs map[string]any, opts PublishOptions) error {
	id := s.nextID()
	req := newRequest()
	req.pub = publishMsg{Request: id, Options: traceOptions(ackOptions, opts.Trace), Topic: topic, Args: req.copyArgs(args), Kwargs: kwargs}
	return s.expectSized(ctx, id, &req.pub, req, mtPublished, opts.Sent)
}
