// Package otel is the OpenTelemetry exporter of the IronFlock SDK: one
// Exporter that is at once the client's hooks (client.WithHooks), its
// trace seam (client.WithTracePropagation), and the hooks of package
// outbox, files and agent. It lives in a module of its own, so that a
// device program that does not import it links none of OpenTelemetry.
//
//	exp, err := otel.New() // the global TracerProvider and MeterProvider
//	c, err := client.New(client.WithHooks(exp), client.WithTracePropagation(exp))
//	ob, err := outbox.Open(c, dir, outbox.WithHooks(exp))
//
// Spans and metrics follow OpenTelemetry's messaging conventions, with
// messaging.system "wamp":
//
//	send <table|topic>      a publication or an append (producer)
//	call <procedure>        any other call (client)
//	process <topic|proc>    an event or invocation handled (consumer, server),
//	                        a child of the remote span the message carried
//	create <table>          a row stored in the outbox (producer)
//	send <table>            an outbox row delivered, in the row's own trace,
//	                        from its append to its delivery
//
//	messaging.client.operation.duration   histogram, s: publish, append, call
//	messaging.process.duration            histogram, s: events, invocations
//	messaging.client.sent.messages        counter
//	messaging.client.consumed.messages    counter
//	ironflock.client.refusals             counter, by error URI
//	ironflock.client.reconnects           counter
//	ironflock.client.keepalive.rtt        histogram, s
//	ironflock.outbox.rows, .bytes         gauges; .oldest_age gauge, s
//	ironflock.files.transfer.duration     histogram, s; .bytes counter
//	ironflock.agent.tool.duration         histogram, s
//
// Every label is bounded: destinations are templates (client.Op.Template:
// device keys replaced by "{key}") or table names, never raw URIs.
package otel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/flockgo/ironflock/client"
)

// ScopeName is the instrumentation scope of the tracer and the meter.
const ScopeName = "github.com/flockgo/ironflock/otel"

// Option configures New.
type Option func(*settings)

type settings struct {
	tp   trace.TracerProvider
	mp   metric.MeterProvider
	prop propagation.TextMapPropagator
}

// WithTracerProvider sets the TracerProvider (default: otel's global).
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *settings) { s.tp = tp }
}

// WithMeterProvider sets the MeterProvider (default: otel's global).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *settings) { s.mp = mp }
}

// WithPropagator sets how trace context is written into and read from a
// message (default: W3C trace context, propagation.TraceContext).
func WithPropagator(p propagation.TextMapPropagator) Option {
	return func(s *settings) { s.prop = p }
}

// Exporter turns what the SDK reports into spans and metrics. It is safe
// for concurrent use; one Exporter may serve several clients.
type Exporter struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator
	m      instruments
}

// New returns an Exporter.
func New(opts ...Option) (*Exporter, error) {
	s := settings{}
	for _, o := range opts {
		o(&s)
	}
	if s.tp == nil {
		s.tp = otel.GetTracerProvider()
	}
	if s.mp == nil {
		s.mp = otel.GetMeterProvider()
	}
	if s.prop == nil {
		s.prop = propagation.TraceContext{}
	}
	e := &Exporter{tracer: s.tp.Tracer(ScopeName), prop: s.prop}
	if err := e.m.init(s.mp.Meter(ScopeName)); err != nil {
		return nil, err
	}
	return e, nil
}

// Common attributes.
var (
	systemWAMP = attribute.String("messaging.system", "wamp")
)

// Inject implements client.TracePropagator.
func (e *Exporter) Inject(ctx context.Context) (traceparent, tracestate string) {
	c := propagation.MapCarrier{}
	e.prop.Inject(ctx, c)
	return c["traceparent"], c["tracestate"]
}

// Extract implements client.TracePropagator.
func (e *Exporter) Extract(ctx context.Context, traceparent, tracestate string) context.Context {
	c := propagation.MapCarrier{"traceparent": traceparent}
	if tracestate != "" {
		c["tracestate"] = tracestate
	}
	return e.prop.Extract(ctx, c)
}

// spanKey holds the span an Exporter started for an operation, so that
// its end finds it whatever other hooks did to the context.
type spanKey struct{}

// destination is the label of an operation: its table, else its
// template.
func destination(op client.Op) string {
	if op.Table != "" {
		return op.Table
	}
	return op.Template
}

// operation is the messaging operation name and type of op.
func operation(op client.Op) (name, typ string, kind trace.SpanKind) {
	switch op.Kind {
	case client.OpPublish, client.OpAppend:
		return "send", "send", trace.SpanKindProducer
	case client.OpEvent:
		return "process", "process", trace.SpanKindConsumer
	case client.OpInvocation:
		return "process", "process", trace.SpanKindServer
	default:
		return "call", "send", trace.SpanKindClient
	}
}

func (e *Exporter) start(ctx context.Context, op client.Op) context.Context {
	name, typ, kind := operation(op)
	dest := destination(op)
	ctx, span := e.tracer.Start(ctx, name+" "+dest, trace.WithSpanKind(kind), trace.WithAttributes(
		systemWAMP,
		attribute.String("messaging.operation.name", name),
		attribute.String("messaging.operation.type", typ),
		attribute.String("messaging.destination.name", dest),
		attribute.String("ironflock.operation", op.Kind.String()),
	))
	return context.WithValue(ctx, spanKey{}, span)
}

func (e *Exporter) end(ctx context.Context, err error, attrs ...attribute.KeyValue) {
	span, ok := ctx.Value(spanKey{}).(trace.Span)
	if !ok {
		return
	}
	if len(attrs) > 0 {
		span.SetAttributes(attrs...)
	}
	if err != nil {
		span.SetAttributes(attribute.String("error.type", errorType(err)))
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// errorType is the error.type of err: its WAMP URI, else "_OTHER".
func errorType(err error) string {
	if uri := client.WampURI(err); uri != "" {
		return uri
	}
	return "_OTHER"
}

// OnSendStart implements client.HookSendStart: it starts the span of a
// publish, append or call.
func (e *Exporter) OnSendStart(ctx context.Context, op client.Op) context.Context {
	return e.start(ctx, op)
}

// OnPublish implements client.HookPublish.
func (e *Exporter) OnPublish(ctx context.Context, op client.Op, out client.Outcome) {
	e.sent(ctx, op, out)
}

// OnAppend implements client.HookAppend.
func (e *Exporter) OnAppend(ctx context.Context, op client.Op, out client.Outcome) {
	e.sent(ctx, op, out)
}

// OnCall implements client.HookCall.
func (e *Exporter) OnCall(ctx context.Context, op client.Op, out client.Outcome) {
	e.sent(ctx, op, out)
}

func (e *Exporter) sent(ctx context.Context, op client.Op, out client.Outcome) {
	e.end(ctx, out.Err, attribute.Int("messaging.message.body.size", out.Bytes))
	attrs := e.m.opAttrs(op, out.Err)
	e.m.opDuration.Record(ctx, out.Latency.Seconds(), metric.WithAttributeSet(attrs))
	if out.Err == nil {
		e.m.sent.Add(ctx, 1, metric.WithAttributeSet(attrs))
	}
}

// OnProcessStart implements client.HookProcessStart: it starts the span
// of an event or invocation handled, a child of the span the message
// carried.
func (e *Exporter) OnProcessStart(ctx context.Context, op client.Op) context.Context {
	return e.start(ctx, op)
}

// OnEvent implements client.HookEvent.
func (e *Exporter) OnEvent(ctx context.Context, op client.Op, d client.Delivery) {
	e.end(ctx, nil, attribute.Float64("ironflock.event.lag", d.Lag.Seconds()), attribute.Int("ironflock.event.queued", d.Queued))
	attrs := e.m.opAttrs(op, nil)
	e.m.processDuration.Record(ctx, d.Took.Seconds(), metric.WithAttributeSet(attrs))
	e.m.consumed.Add(ctx, 1, metric.WithAttributeSet(attrs))
	e.m.eventLag.Record(ctx, d.Lag.Seconds(), metric.WithAttributeSet(attrs))
}

// OnInvocation implements client.HookInvocation.
func (e *Exporter) OnInvocation(ctx context.Context, op client.Op, out client.Outcome) {
	e.end(ctx, out.Err)
	attrs := e.m.opAttrs(op, out.Err)
	e.m.processDuration.Record(ctx, out.Latency.Seconds(), metric.WithAttributeSet(attrs))
	e.m.consumed.Add(ctx, 1, metric.WithAttributeSet(attrs))
}

// OnRefusal implements client.HookRefusal.
func (e *Exporter) OnRefusal(op client.Op, uri string) {
	e.m.refusals.Add(context.Background(), 1, metric.WithAttributes(
		systemWAMP, attribute.String("messaging.destination.name", destination(op)), attribute.String("error.type", uri)))
}

// OnJoin implements client.HookJoin.
func (e *Exporter) OnJoin(_ string, _ uint64, reconnect bool) {
	if reconnect {
		e.m.reconnects.Add(context.Background(), 1, metric.WithAttributes(systemWAMP))
	}
}

// OnKeepalive implements client.HookKeepalive.
func (e *Exporter) OnKeepalive(rtt time.Duration) {
	e.m.keepalive.Record(context.Background(), rtt.Seconds(), metric.WithAttributes(systemWAMP))
}

// The interfaces an Exporter implements.
var (
	_ client.TracePropagator  = (*Exporter)(nil)
	_ client.HookSendStart    = (*Exporter)(nil)
	_ client.HookPublish      = (*Exporter)(nil)
	_ client.HookAppend       = (*Exporter)(nil)
	_ client.HookCall         = (*Exporter)(nil)
	_ client.HookProcessStart = (*Exporter)(nil)
	_ client.HookEvent        = (*Exporter)(nil)
	_ client.HookInvocation   = (*Exporter)(nil)
	_ client.HookRefusal      = (*Exporter)(nil)
	_ client.HookJoin         = (*Exporter)(nil)
	_ client.HookKeepalive    = (*Exporter)(nil)
)
