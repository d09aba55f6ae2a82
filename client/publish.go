// This file holds Publish: acknowledged publications carrying the device
// metadata.

package client

import (
	"context"
	"time"
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
func (c *Client) publish(ctx context.Context, op, topic string, args []any, kwargs map[string]any, wait time.Duration) error {
	s, err := c.waitSession(ctx, op, topic, wait)
	if err != nil {
		return err
	}
	return opErr(op, topic, wampError(s.Publish(ctx, topic, args, kwargs)))
}
