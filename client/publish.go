// This file holds Publish, its options, and acknowledged publications.

package client

import (
	"context"
	"time"
)

// PublishOption changes how Publish publishes; pass it among the arguments
// of Publish.
type PublishOption interface {
	// applyPublish returns s with the option applied (by value: the
	// settings stay on the stack).
	applyPublish(s publishSettings) publishSettings
}

type publishSettings struct{ noMetadata bool }

type publishOption func(*publishSettings)

func (f publishOption) applyPublish(s publishSettings) publishSettings {
	f(&s)
	return s
}

// NoMetadata publishes the arguments as given, without the device metadata
// in the keyword arguments: for topics whose subscribers (on another
// router, say) expect an exact payload.
func NoMetadata() PublishOption {
	return publishOption(func(s *publishSettings) { s.noMetadata = true })
}

// Publish publishes to topic and waits for the router's acknowledgement.
// Arguments are positional; a Kwargs value among them becomes keyword
// arguments, and PublishOption values (NoMetadata) configure the
// publication. The device metadata DEVICE_SERIAL_NUMBER, DEVICE_KEY and
// DEVICE_NAME is added to the keyword arguments (keys you set win) unless
// NoMetadata is given. While disconnected, Publish waits for a session (10
// s by default) and then fails with ErrNotConnected.
func (c *Client) Publish(ctx context.Context, topic string, args ...any) error {
	const op = "Publish"
	if err := checkTopic(op, topic, false); err != nil {
		return err
	}
	var ps publishSettings
	wargs, kwargs, err := splitArgs(op, topic, args, func(o PublishOption) { ps = o.applyPublish(ps) })
	if err != nil {
		return err
	}
	if !ps.noMetadata {
		wargs, kwargs = withMetadata(wargs, kwargs, c.metadata())
	}
	return c.publish(ctx, op, topic, wargs, kwargs, c.set.sessionWait)
}

// publish sends an acknowledged PUBLISH of an already encoded payload.
// Without hooks or trace propagation it goes the way it always went, with
// two atomic updates for Stats.
func (c *Client) publish(ctx context.Context, op, topic string, args []any, kwargs map[string]any, wait time.Duration) error {
	if c.obs.traffic() || c.set.tracer != nil {
		return c.publishObserved(ctx, op, topic, args, kwargs, wait)
	}
	s, err := c.waitSession(ctx, op, topic, wait)
	if err != nil {
		return err
	}
	c.stats.pendingAcks.Add(1)
	err = s.Publish(ctx, topic, args, kwargs)
	c.stats.pendingAcks.Add(-1)
	return opErr(op, topic, wampError(err))
}

// publishObserved is publish with the hooks told and the trace context
// sent.
func (c *Client) publishObserved(ctx context.Context, op, topic string, args []any, kwargs map[string]any, wait time.Duration) error {
	var desc Op
	start := time.Now()
	obs := c.obs.traffic()
	if obs {
		desc = c.opOf(op, topic, "")
		ctx = c.obs.startSend(ctx, desc)
	}
	var sent int
	s, err := c.waitSession(ctx, op, topic, wait)
	if err == nil {
		c.stats.pendingAcks.Add(1)
		err = s.PublishTraced(ctx, topic, args, kwargs, c.traceOf(ctx), &sent)
		c.stats.pendingAcks.Add(-1)
		err = opErr(op, topic, wampError(err))
	}
	if obs {
		c.obs.sent(ctx, desc, Outcome{Bytes: sent, Latency: time.Since(start), Err: err})
	}
	return err
}
