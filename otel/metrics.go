// This file holds the Exporter's instruments and their attributes.

package otel

import (
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/flockgo/ironflock/client"
)

// instruments are the Exporter's metrics (see the package documentation).
type instruments struct {
	opDuration, processDuration, eventLag, keepalive metric.Float64Histogram
	sent, consumed, refusals, reconnects             metric.Int64Counter
	outboxRows, outboxBytes                          metric.Int64Gauge
	outboxAge                                        metric.Float64Gauge
	outboxDelivered, outboxDead                      metric.Int64Counter
	fileDuration                                     metric.Float64Histogram
	fileBytes                                        metric.Int64Counter
	toolDuration                                     metric.Float64Histogram
}

func (m *instruments) init(meter metric.Meter) error {
	var errs []error
	hist := func(name, desc string) metric.Float64Histogram {
		h, err := meter.Float64Histogram(name, metric.WithUnit("s"), metric.WithDescription(desc))
		errs = append(errs, err)
		return h
	}
	count := func(name, unit, desc string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	m.opDuration = hist("messaging.client.operation.duration", "Duration of a publish, append or call, until its answer.")
	m.processDuration = hist("messaging.process.duration", "Duration of an event's or invocation's handler.")
	m.eventLag = hist("ironflock.event.lag", "Time an event waited in its subscription's queue.")
	m.keepalive = hist("ironflock.client.keepalive.rtt", "Round trip of a keepalive ping.")
	m.sent = count("messaging.client.sent.messages", "{message}", "Messages sent and acknowledged.")
	m.consumed = count("messaging.client.consumed.messages", "{message}", "Events and invocations handled.")
	m.refusals = count("ironflock.client.refusals", "{refusal}", "Operations answered with an ERROR, by its URI.")
	m.reconnects = count("ironflock.client.reconnects", "{session}", "Sessions joined after the first.")
	m.outboxDelivered = count("ironflock.outbox.delivered", "{row}", "Outbox rows stored by the data backend.")
	m.outboxDead = count("ironflock.outbox.dead_lettered", "{row}", "Outbox rows moved to the dead-letter list.")
	var err error
	m.outboxRows, err = meter.Int64Gauge("ironflock.outbox.rows", metric.WithUnit("{row}"), metric.WithDescription("Rows waiting in the outbox."))
	errs = append(errs, err)
	m.outboxBytes, err = meter.Int64Gauge("ironflock.outbox.bytes", metric.WithUnit("By"), metric.WithDescription("Bytes the rows waiting in the outbox take on disk."))
	errs = append(errs, err)
	m.outboxAge, err = meter.Float64Gauge("ironflock.outbox.oldest_age", metric.WithUnit("s"), metric.WithDescription("Age of the oldest row waiting in the outbox."))
	errs = append(errs, err)
	m.fileDuration = hist("ironflock.files.transfer.duration", "Duration of a file Put or Get.")
	m.fileBytes = count("ironflock.files.transfer.bytes", "By", "Bytes of files put and got.")
	m.toolDuration = hist("ironflock.agent.tool.duration", "Duration of an agent tool's invocation.")
	return errors.Join(errs...)
}

// opAttrs are the attributes of an operation's metrics: bounded, from
// the template or table, never the raw URI.
func (m *instruments) opAttrs(op client.Op, err error) attribute.Set {
	name, _, _ := operation(op)
	kv := []attribute.KeyValue{
		systemWAMP,
		attribute.String("messaging.operation.name", name),
		attribute.String("messaging.destination.name", destination(op)),
		attribute.String("ironflock.operation", op.Kind.String()),
	}
	if err != nil {
		kv = append(kv, attribute.String("error.type", errorType(err)))
	}
	return attribute.NewSet(kv...)
}
