// This file holds Exporter: the SDK's Prometheus exporter, a collector of
// Client.Stats and of what the client's and the outbox's hooks report,
// labeled by templates (a table, a URI without its keys) only, so that
// the number of series does not grow with the fleet.

package prometheus

import (
	"context"
	"sync"

	prom "github.com/prometheus/client_golang/prometheus"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/outbox"
)

// Exporter is a prometheus.Collector of one or more SDK clients: give it
// to client.WithHooks (and outbox.WithHooks), let it Watch the clients,
// and register it with a prometheus.Registerer.
//
//	exp := prometheus.New()
//	c, err := client.New(client.WithHooks(exp))
//	exp.Watch(c)
//	reg.MustRegister(exp)
//
// Its series: ironflock_client_messages_total and
// ironflock_client_bytes_total by direction (in, out);
// ironflock_client_sessions_total, ironflock_client_reconnects_total;
// ironflock_client_pending by kind (call, ack); ironflock_outbox_rows,
// ironflock_outbox_bytes and ironflock_outbox_oldest_age_seconds;
// ironflock_client_operation_duration_seconds (a histogram by operation,
// destination and outcome), ironflock_client_sent_bytes_total by
// operation and destination, ironflock_client_refusals_total by
// operation, destination and error. A destination is Op.Table for the
// data backend's operations and Op.Template otherwise; an error is the
// refusal's WAMP URI, templated likewise.
type Exporter struct {
	mu      sync.Mutex
	clients []*client.Client

	ops     *prom.HistogramVec
	sent    *prom.CounterVec
	refused *prom.CounterVec
	oldest  prom.Gauge

	messages, bytes, sessions, reconnects, pending, rows, outBytes *prom.Desc
}

// New returns an exporter watching no client yet.
func New() *Exporter {
	return &Exporter{
		ops: prom.NewHistogramVec(prom.HistogramOpts{
			Name:    "ironflock_client_operation_duration_seconds",
			Help:    "Duration of the client's operations (publish, append, call, event, invocation) until answered or handled.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"operation", "destination", "outcome"}),
		sent: prom.NewCounterVec(prom.CounterOpts{
			Name: "ironflock_client_sent_bytes_total",
			Help: "Bytes of the PUBLISH and CALL messages sent, as encoded.",
		}, []string{"operation", "destination"}),
		refused: prom.NewCounterVec(prom.CounterOpts{
			Name: "ironflock_client_refusals_total",
			Help: "Operations the router, the data backend or a callee answered with an ERROR.",
		}, []string{"operation", "destination", "error"}),
		oldest: prom.NewGauge(prom.GaugeOpts{
			Name: "ironflock_outbox_oldest_age_seconds",
			Help: "Age of the oldest row waiting in the outbox (0 when empty), as of its last change.",
		}),
		messages:   prom.NewDesc("ironflock_client_messages_total", "WAMP messages read and written.", []string{"direction"}, nil),
		bytes:      prom.NewDesc("ironflock_client_bytes_total", "Bytes of the WAMP messages read and written, as encoded.", []string{"direction"}, nil),
		sessions:   prom.NewDesc("ironflock_client_sessions_total", "Sessions announced.", nil, nil),
		reconnects: prom.NewDesc("ironflock_client_reconnects_total", "Sessions announced after the first.", nil, nil),
		pending:    prom.NewDesc("ironflock_client_pending", "Calls and acknowledged publications waiting for their answer.", []string{"kind"}, nil),
		rows:       prom.NewDesc("ironflock_outbox_rows", "Rows waiting in the outboxes open on the clients.", nil, nil),
		outBytes:   prom.NewDesc("ironflock_outbox_bytes", "Bytes of the rows waiting in the outboxes open on the clients.", nil, nil),
	}
}

// Watch adds c's Stats to what the exporter collects; the figures of
// several clients add up.
func (e *Exporter) Watch(c *client.Client) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.clients = append(e.clients, c)
}

// Describe sends the descriptions of every series (prometheus.Collector).
func (e *Exporter) Describe(ch chan<- *prom.Desc) {
	for _, d := range []*prom.Desc{e.messages, e.bytes, e.sessions, e.reconnects, e.pending, e.rows, e.outBytes} {
		ch <- d
	}
	e.ops.Describe(ch)
	e.sent.Describe(ch)
	e.refused.Describe(ch)
	e.oldest.Describe(ch)
}

// Collect sends the current figures (prometheus.Collector).
func (e *Exporter) Collect(ch chan<- prom.Metric) {
	e.mu.Lock()
	var s client.Stats
	for _, c := range e.clients {
		cs := c.Stats()
		s.MessagesIn += cs.MessagesIn
		s.MessagesOut += cs.MessagesOut
		s.BytesIn += cs.BytesIn
		s.BytesOut += cs.BytesOut
		s.Sessions += cs.Sessions
		s.Reconnects += cs.Reconnects
		s.PendingCalls += cs.PendingCalls
		s.PendingAcks += cs.PendingAcks
		s.OutboxRows += cs.OutboxRows
		s.OutboxBytes += cs.OutboxBytes
	}
	e.mu.Unlock()
	counter := func(d *prom.Desc, v uint64, labels ...string) {
		ch <- prom.MustNewConstMetric(d, prom.CounterValue, float64(v), labels...)
	}
	gauge := func(d *prom.Desc, v int64, labels ...string) {
		ch <- prom.MustNewConstMetric(d, prom.GaugeValue, float64(v), labels...)
	}
	counter(e.messages, s.MessagesIn, "in")
	counter(e.messages, s.MessagesOut, "out")
	counter(e.bytes, s.BytesIn, "in")
	counter(e.bytes, s.BytesOut, "out")
	counter(e.sessions, s.Sessions)
	counter(e.reconnects, s.Reconnects)
	gauge(e.pending, s.PendingCalls, "call")
	gauge(e.pending, s.PendingAcks, "ack")
	gauge(e.rows, s.OutboxRows)
	gauge(e.outBytes, s.OutboxBytes)
	e.ops.Collect(ch)
	e.sent.Collect(ch)
	e.refused.Collect(ch)
	e.oldest.Collect(ch)
}

// destination is the label of op's destination: its table, or its
// template.
func destination(op client.Op) string {
	if op.Table != "" {
		return op.Table
	}
	return op.Template
}

// outcome is the label of an operation's end.
func outcome(err error) string {
	if err != nil {
		return "error"
	}
	return "ok"
}

func (e *Exporter) observe(op client.Op, out client.Outcome) {
	dest := destination(op)
	e.ops.WithLabelValues(op.Kind.String(), dest, outcome(out.Err)).Observe(out.Latency.Seconds())
	if out.Bytes > 0 {
		e.sent.WithLabelValues(op.Kind.String(), dest).Add(float64(out.Bytes))
	}
}

// OnPublish counts an acknowledged publication (client.HookPublish).
func (e *Exporter) OnPublish(_ context.Context, op client.Op, out client.Outcome) { e.observe(op, out) }

// OnAppend counts an append (client.HookAppend).
func (e *Exporter) OnAppend(_ context.Context, op client.Op, out client.Outcome) { e.observe(op, out) }

// OnCall counts a call (client.HookCall).
func (e *Exporter) OnCall(_ context.Context, op client.Op, out client.Outcome) { e.observe(op, out) }

// OnInvocation counts an invocation served (client.HookInvocation).
func (e *Exporter) OnInvocation(_ context.Context, op client.Op, out client.Outcome) {
	e.observe(op, client.Outcome{Latency: out.Latency, Err: out.Err})
}

// OnEvent counts an event handled (client.HookEvent), its handler's run
// as its duration.
func (e *Exporter) OnEvent(_ context.Context, op client.Op, d client.Delivery) {
	e.ops.WithLabelValues(op.Kind.String(), destination(op), "ok").Observe(d.Took.Seconds())
}

// OnRefusal counts a refusal by its URI's template (client.HookRefusal).
func (e *Exporter) OnRefusal(op client.Op, uri string) {
	e.refused.WithLabelValues(op.Kind.String(), destination(op), client.Template(uri)).Inc()
}

// OnDepth keeps the outbox's oldest row's age (outbox.HookDepth).
func (e *Exporter) OnDepth(d outbox.Depth) { e.oldest.Set(d.OldestAge.Seconds()) }

// The hook interfaces the exporter implements.
var (
	_ client.HookPublish    = (*Exporter)(nil)
	_ client.HookAppend     = (*Exporter)(nil)
	_ client.HookCall       = (*Exporter)(nil)
	_ client.HookInvocation = (*Exporter)(nil)
	_ client.HookEvent      = (*Exporter)(nil)
	_ client.HookRefusal    = (*Exporter)(nil)
	_ outbox.HookDepth      = (*Exporter)(nil)
	_ prom.Collector        = (*Exporter)(nil)
)
