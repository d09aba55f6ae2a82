package client

import (
	"context"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// Publish publishes to topic and waits for the router's acknowledgement.
// Arguments are positional; a Kwargs value among them becomes keyword
// arguments. The device metadata DEVICE_SERIAL_NUMBER, DEVICE_KEY and
// DEVICE_NAME is added to the keyword arguments (keys you set win). While
// disconnected, Publish waits for a session (10 s by default) and then fails
// with ErrNotConnected.
func (c *Client) Publish(ctx context.Context, topic string, args ...any) error {
	const op = "Publish"
	if err := checkTopic(op, topic, false); err != nil {
		return err
	}
	wargs, kwargs, _, err := splitArgs(op, topic, args, false)
	if err != nil {
		return err
	}
	wargs, kwargs = withMetadata(wargs, kwargs, c.meta)
	return c.publish(ctx, op, topic, wargs, kwargs, c.set.sessionWait)
}

// publish sends an acknowledged PUBLISH of an already encoded payload.
func (c *Client) publish(ctx context.Context, op, topic string, args wamp.List, kwargs wamp.Dict, wait time.Duration) error {
	s, err := c.waitSession(ctx, op, topic, wait)
	if err != nil {
		return err
	}
	id := s.nextID()
	msg, err := s.roundTrip(ctx, id, &wamp.Publish{
		Request:     id,
		Options:     wamp.Dict{wire.OptAcknowledge: true},
		Topic:       wamp.URI(topic),
		Arguments:   args,
		ArgumentsKw: kwargs,
	}, newRequest(), c.set.responseTimeout)
	if err != nil {
		return opErr(op, topic, err)
	}
	if _, ok := msg.(*wamp.Published); !ok {
		return opErr(op, topic, unexpected(msg, "PUBLISHED"))
	}
	return nil
}
