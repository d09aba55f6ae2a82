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

// Publish publishes args and kwargs to topic and waits for the router's
// acknowledgement (PUBLISHED) within ctx and the response timeout.
func (s *Session) Publish(ctx context.Context, topic string, args []any, kwargs map[string]any) error {
	return s.PublishTraced(ctx, topic, args, kwargs, Trace{}, nil)
}

// PublishTraced is Publish with tr, when set, in the PUBLISH's options;
// sent, when set, receives the size of the PUBLISH as written.
func (s *Session) PublishTraced(ctx context.Context, topic string, args []any, kwargs map[string]any, tr Trace, sent *int) error {
	id := s.nextID()
	req := newRequest()
	req.pub = publishMsg{Request: id, Options: traceOptions(ackOptions, tr), Topic: topic, Args: req.copyArgs(args), Kwargs: kwargs}
	return s.expectSized(ctx, id, &req.pub, req, mtPublished, sent)
}
