// This file holds the trace seam of a Client: TracePropagator, which
// moves a W3C trace context between a context.Context and a message, and
// WithTracePropagation. The client itself knows nothing of any tracing
// library; the OpenTelemetry module of this repository implements the
// seam. On the wire the context rides under "_traceparent" and
// "_tracestate" in the options of PUBLISH and CALL and the details of
// EVENT and INVOCATION (docs/wire.md §13).

package client

import (
	"context"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// TracePropagator moves a W3C trace context (the traceparent and tracestate
// headers' values) between a context and a message.
type TracePropagator interface {
	// Inject returns the trace context of the span ctx carries; a
	// traceparent "" when it carries none (nothing is sent then).
	Inject(ctx context.Context) (traceparent, tracestate string)
	// Extract returns ctx continuing the trace of traceparent and
	// tracestate, which a message carried; it is called only when
	// traceparent is not empty.
	Extract(ctx context.Context, traceparent, tracestate string) context.Context
}

// WithTracePropagation makes the client send the trace context of the ctx
// of every publish, append and call in the message, and hand the handlers
// of events and invocations a ctx continuing the trace their message
// carried.
func WithTracePropagation(p TracePropagator) Option {
	return func(s *settings) { s.tracer = p }
}

// InjectTrace returns the trace context of ctx as the client sends it
// (empty without WithTracePropagation): for stores that keep a message for
// later, such as the outbox.
func (c *Client) InjectTrace(ctx context.Context) (traceparent, tracestate string) {
	if c.set.tracer == nil {
		return "", ""
	}
	return c.set.tracer.Inject(ctx)
}

// ExtractTrace returns ctx continuing the trace of traceparent and
// tracestate (ctx itself when traceparent is empty or the client has no
// WithTracePropagation): the counterpart of InjectTrace.
func (c *Client) ExtractTrace(ctx context.Context, traceparent, tracestate string) context.Context {
	if c.set.tracer == nil || traceparent == "" {
		return ctx
	}
	return c.set.tracer.Extract(ctx, traceparent, tracestate)
}

// traceOf returns the trace context of ctx for a message.
func (c *Client) traceOf(ctx context.Context) engine.Trace {
	if c.set.tracer == nil {
		return engine.Trace{}
	}
	p, s := c.set.tracer.Inject(ctx)
	return engine.Trace{Parent: p, State: s}
}

// continued returns ctx continuing the trace a message carried.
func (c *Client) continued(ctx context.Context, tr engine.Trace) context.Context {
	return c.ExtractTrace(ctx, tr.Parent, tr.State)
}
