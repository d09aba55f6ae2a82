// This file holds the Exporter's hooks of packages outbox, files and
// agent.

package otel

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/files"
	"github.com/flockgo/ironflock/outbox"
)

// OnEnqueue implements outbox.HookEnqueue: a "create <table>" span in the
// caller's trace.
func (e *Exporter) OnEnqueue(ctx context.Context, table string, ids []string, bytes int64) {
	_, span := e.tracer.Start(ctx, "create "+table, trace.WithSpanKind(trace.SpanKindProducer), trace.WithAttributes(
		systemWAMP,
		attribute.String("messaging.operation.name", "create"),
		attribute.String("messaging.operation.type", "create"),
		attribute.String("messaging.destination.name", table),
		attribute.Int("messaging.batch.message_count", len(ids)),
		attribute.Int64("messaging.message.body.size", bytes),
	))
	if len(ids) == 1 {
		span.SetAttributes(attribute.String("messaging.message.id", ids[0]))
	}
	span.End()
}

// OnDeliver implements outbox.HookDeliver: a "send <table>" span in the
// row's own trace (after a restart too), from its append to its delivery.
func (e *Exporter) OnDeliver(ctx context.Context, table, id string, age time.Duration) {
	now := time.Now()
	_, span := e.tracer.Start(ctx, "send "+table, trace.WithSpanKind(trace.SpanKindProducer), trace.WithTimestamp(now.Add(-age)),
		trace.WithAttributes(
			systemWAMP,
			attribute.String("messaging.operation.name", "send"),
			attribute.String("messaging.operation.type", "send"),
			attribute.String("messaging.destination.name", table),
			attribute.String("messaging.message.id", id),
			attribute.Bool("ironflock.outbox", true),
		))
	span.End(trace.WithTimestamp(now))
	e.m.outboxDelivered.Add(ctx, 1, metric.WithAttributes(systemWAMP, attribute.String("messaging.destination.name", table)))
}

// OnDeadLetter implements outbox.HookDeadLetter.
func (e *Exporter) OnDeadLetter(table, _, uri string, _ error) {
	if uri == "" {
		uri = "_OTHER"
	}
	e.m.outboxDead.Add(context.Background(), 1, metric.WithAttributes(systemWAMP,
		attribute.String("messaging.destination.name", table), attribute.String("error.type", uri)))
}

// OnDepth implements outbox.HookDepth.
func (e *Exporter) OnDepth(d outbox.Depth) {
	ctx := context.Background()
	e.m.outboxRows.Record(ctx, d.Rows)
	e.m.outboxBytes.Record(ctx, d.Bytes)
	e.m.outboxAge.Record(ctx, d.OldestAge.Seconds())
}

// OnTransfer implements files.HookTransfer.
func (e *Exporter) OnTransfer(ctx context.Context, t files.Transfer) {
	kv := []attribute.KeyValue{attribute.String("ironflock.files.operation", t.Op), attribute.String("ironflock.files.namespace", t.Namespace)}
	if t.Err != nil {
		kv = append(kv, attribute.String("error.type", errorType(t.Err)))
	}
	set := metric.WithAttributes(kv...)
	e.m.fileDuration.Record(ctx, t.Latency.Seconds(), set)
	e.m.fileBytes.Add(ctx, t.Bytes, set)
}

// OnTool implements agent.HookTool: the tool's duration, and on the span
// of the invocation (the client's "process" span) whether its arguments
// were refused.
func (e *Exporter) OnTool(ctx context.Context, c agent.ToolCall) {
	kv := []attribute.KeyValue{attribute.String("ironflock.agent.tool", c.Topic), attribute.Bool("ironflock.agent.invalid", c.Invalid)}
	if c.Err != nil {
		kv = append(kv, attribute.String("error.type", errorType(c.Err)))
	}
	e.m.toolDuration.Record(ctx, c.Took.Seconds(), metric.WithAttributes(kv...))
	if span := trace.SpanFromContext(ctx); span.IsRecording() && c.Invalid {
		span.SetStatus(codes.Error, "invalid arguments")
	}
}

// The interfaces of packages outbox, files and agent an Exporter
// implements.
var (
	_ outbox.HookEnqueue    = (*Exporter)(nil)
	_ outbox.HookDeliver    = (*Exporter)(nil)
	_ outbox.HookDeadLetter = (*Exporter)(nil)
	_ outbox.HookDepth      = (*Exporter)(nil)
	_ files.HookTransfer    = (*Exporter)(nil)
	_ agent.HookTool        = (*Exporter)(nil)
)
