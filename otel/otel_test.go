package otel_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/flockgo/ironflock/client"
	ifotel "github.com/flockgo/ironflock/otel"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
)

// perKind is the number of sampled messages of each of the five kinds
// (publish, call, append, publication to a table, outbox row): 12,500 in
// all.
const perKind = 2500

const appTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: n, name: Number, dataType: bigint}
        - {id: row_id, name: Row id, dataType: string}
`

type row struct {
	Tsp time.Time `json:"tsp"`
	N   int       `json:"n"`
}

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// world is a fake platform, an app on two devices, and an Exporter over
// an in-memory span recorder and a manual metric reader.
type world struct {
	p      *platformtest.Platform
	ia, ib *platformtest.Installation
	rec    *tracetest.SpanRecorder
	reader *sdkmetric.ManualReader
	exp    *ifotel.Exporter
	tracer trace.Tracer
}

func newWorld(t *testing.T) *world {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	exp, err := ifotel.New(ifotel.WithTracerProvider(tp), ifotel.WithMeterProvider(mp))
	if err != nil {
		t.Fatal(err)
	}
	p := platformtest.New(t, platformtest.WithoutRecording())
	app := p.AddApp("traced", appTemplate)
	return &world{p: p, ia: p.Install(p.AddDevice("a"), app, platformtest.Dev), ib: p.Install(p.AddDevice("b"), app, platformtest.Dev),
		rec: rec, reader: reader, exp: exp, tracer: tp.Tracer("test")}
}

// newClient makes a client of inst with the exporter; started unless
// told otherwise.
func (w *world) newClient(t *testing.T, inst *platformtest.Installation, start bool) *client.Client {
	c, err := client.New(client.WithEnv(inst.Env()), client.WithLogger(quiet), client.WithHooks(w.exp), client.WithTracePropagation(w.exp),
		client.WithReconnectBackoff(20*time.Millisecond, 100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	if start {
		if err := c.Start(ctxT(t)); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// traces maps a message's number to a trace id, safely.
type traces struct {
	mu   sync.Mutex
	ids  map[int]trace.TraceID
	full chan struct{}
	want int
}

func newTraces(want int) *traces {
	return &traces{ids: map[int]trace.TraceID{}, full: make(chan struct{}), want: want}
}

func (tr *traces) put(i int, id trace.TraceID) {
	tr.mu.Lock()
	defer tr.mu.Unlock()
	if _, dup := tr.ids[i]; dup {
		return
	}
	tr.ids[i] = id
	if len(tr.ids) == tr.want {
		close(tr.full)
	}
}

func (tr *traces) wait(t *testing.T, ctx context.Context, what string) {
	select {
	case <-tr.full:
	case <-ctx.Done():
		tr.mu.Lock()
		defer tr.mu.Unlock()
		t.Fatalf("%s: %d of %d messages received", what, len(tr.ids), tr.want)
	}
}

// each runs op for 0…n-1 on 8 goroutines, each message under a root span
// of its own whose trace id goes to roots.
func (w *world) each(t *testing.T, ctx context.Context, n int, roots *traces, op func(ctx context.Context, i int) error) {
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < n; i += 8 {
				rctx, root := w.tracer.Start(ctx, fmt.Sprintf("root %d", i))
				err := op(rctx, i)
				roots.put(i, root.SpanContext().TraceID())
				root.End()
				if err != nil {
					errs <- fmt.Errorf("message %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// spanNames indexes the ended spans' names by trace id.
func (w *world) spanNames() map[trace.TraceID][]string {
	m := map[trace.TraceID][]string{}
	for _, s := range w.rec.Ended() {
		id := s.SpanContext().TraceID()
		m[id] = append(m[id], s.Name())
	}
	return m
}

// check reports every message whose receiver did not continue its root's
// trace, or whose trace lacks the sender's or the receiver's span.
func check(t *testing.T, what string, roots, got *traces, names map[trace.TraceID][]string, send, process string) {
	t.Helper()
	bad := 0
	for i := range roots.want {
		root, recv := roots.ids[i], got.ids[i]
		spans := strings.Join(names[root], ",")
		if root != recv || !strings.Contains(spans, send) || !strings.Contains(spans, process) {
			if bad++; bad <= 3 {
				t.Errorf("%s %d: root trace %s, receiver's %s, spans of the root's trace [%s]; want one trace with %q and %q",
					what, i, root, recv, spans, send, process)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%s: %d of %d messages left their trace", what, bad, roots.want)
	}
}

func TestOneTracePerMessage(t *testing.T) {
	w := newWorld(t)
	ctx := ctxT(t)
	a, b := w.newClient(t, w.ia, true), w.newClient(t, w.ib, true)

	// publish → subscriber
	pubRoots, pubGot := newTraces(perKind), newTraces(perKind)
	if _, err := b.Subscribe(ctx, "com.example.traced", func(ctx context.Context, ev *client.Event) {
		var m struct{ I int }
		if ev.Decode(&m) == nil {
			pubGot.put(m.I, trace.SpanContextFromContext(ctx).TraceID())
		}
	}); err != nil {
		t.Fatal(err)
	}
	w.each(t, ctx, perKind, pubRoots, func(ctx context.Context, i int) error {
		return a.Publish(ctx, "com.example.traced", map[string]any{"I": i})
	})
	pubGot.wait(t, ctx, "publish")

	// call → callee
	callRoots, callGot := newTraces(perKind), newTraces(perKind)
	if _, err := b.Register(ctx, "echo", func(ctx context.Context, inv *client.Invocation) (any, error) {
		var m struct{ I int }
		if err := inv.Decode(&m); err != nil {
			return nil, err
		}
		callGot.put(m.I, trace.SpanContextFromContext(ctx).TraceID())
		return m.I, nil
	}); err != nil {
		t.Fatal(err)
	}
	w.each(t, ctx, perKind, callRoots, func(ctx context.Context, i int) error {
		_, err := a.CallDeviceFunction(ctx, w.ib.Device().Key(), "echo", map[string]any{"I": i})
		return err
	})
	callGot.wait(t, ctx, "call")

	// append → stored row, seen through the table's feed
	appRoots, appGot := newTraces(perKind), newTraces(perKind)
	ptRoots, ptGot := newTraces(perKind), newTraces(perKind) // publications to the table, rows 2*perKind…
	if _, err := b.SubscribeToTable(ctx, "readings", func(ctx context.Context, ev *client.TableEvent) {
		n, err := strconv.Atoi(fmt.Sprint(ev.Row["n"]))
		switch {
		case err != nil:
		case n < perKind:
			appGot.put(n, trace.SpanContextFromContext(ctx).TraceID())
		case n >= 2*perKind && n < 3*perKind:
			ptGot.put(n-2*perKind, trace.SpanContextFromContext(ctx).TraceID())
		}
	}, client.QueueLimit(2*perKind)); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w.each(t, ctx, perKind, appRoots, func(ctx context.Context, i int) error {
		_, err := a.AppendToTable(ctx, "readings", row{Tsp: t0.Add(time.Duration(i) * time.Millisecond), N: i})
		return err
	})
	appGot.wait(t, ctx, "append")

	// publication to a table → stored row, seen through the table's feed
	w.each(t, ctx, perKind, ptRoots, func(ctx context.Context, i int) error {
		return a.PublishToTable(ctx, "readings", row{Tsp: t0.Add(2*time.Hour + time.Duration(i)*time.Millisecond), N: 2*perKind + i})
	})
	ptGot.wait(t, ctx, "publication to a table")

	// an outbox row delivered after its writer restarted: appended through
	// a client that never connects, delivered by a new client and outbox
	dir := t.TempDir()
	writer := w.newClient(t, w.ia, false)
	ob, err := outbox.Open(writer, dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet))
	if err != nil {
		t.Fatal(err)
	}
	obRoots := newTraces(perKind)
	rowOf := make([]string, perKind)
	w.each(t, ctx, perKind, obRoots, func(ctx context.Context, i int) error {
		id, err := ob.Append(ctx, "readings", row{Tsp: t0.Add(time.Hour + time.Duration(i)*time.Millisecond), N: perKind + i})
		rowOf[i] = id
		return err
	})
	if err := ob.Close(); err != nil {
		t.Fatal(err)
	}
	if err := writer.Stop(ctx); err != nil {
		t.Fatal(err)
	}
	ob, err = outbox.Open(w.newClient(t, w.ia, true), dir, outbox.WithIDColumn("row_id"), outbox.WithLogger(quiet), outbox.WithHooks(w.exp))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	if err := ob.Flush(ctx); err != nil {
		t.Fatal(err)
	}

	names := w.spanNames()
	check(t, "publish", pubRoots, pubGot, names, "send com.example.traced", "process com.example.traced")
	check(t, "call", callRoots, callGot, names, "call {key}.{key}.{key}.DEV.echo", "process {key}.{key}.{key}.DEV.echo")
	check(t, "append", appRoots, appGot, names, "send readings", "process transformed.readings")
	check(t, "publication to a table", ptRoots, ptGot, names, "send readings", "process transformed.readings")

	// the outbox rows: each delivered in a span of its own trace
	delivered := map[string]trace.TraceID{}
	for _, s := range w.rec.Ended() {
		for _, kv := range s.Attributes() {
			if kv.Key == "messaging.message.id" && s.Name() == "send readings" {
				delivered[kv.Value.AsString()] = s.SpanContext().TraceID()
			}
		}
	}
	bad := 0
	for i, id := range rowOf {
		if got, ok := delivered[id]; !ok || got != obRoots.ids[i] {
			if bad++; bad <= 3 {
				t.Errorf("outbox row %d (%s): delivered in trace %s (span seen: %v), want its append's %s", i, id, got, ok, obRoots.ids[i])
			}
		}
	}
	if bad > 0 {
		t.Errorf("outbox: %d of %d rows left their trace", bad, perKind)
	}

	checkMetrics(t, w)
}

// checkMetrics checks the operation histogram: present, labeled by
// templates, never by a URI with device keys.
func checkMetrics(t *testing.T, w *world) {
	var rm metricdata.ResourceMetrics
	if err := w.reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != "messaging.client.operation.duration" {
				continue
			}
			h, ok := m.Data.(metricdata.Histogram[float64])
			if !ok {
				t.Fatalf("%s is %T, want a float64 histogram", m.Name, m.Data)
			}
			found = true
			if len(h.DataPoints) > 10 {
				t.Errorf("%s has %d series; want a few, one per template", m.Name, len(h.DataPoints))
			}
			for _, dp := range h.DataPoints {
				sys, _ := dp.Attributes.Value("messaging.system")
				dest, _ := dp.Attributes.Value("messaging.destination.name")
				if sys.AsString() != "wamp" || strings.ContainsAny(strings.ReplaceAll(dest.AsString(), "{key}", ""), "0123456789") {
					t.Errorf("series %v: want messaging.system wamp and a destination without device keys", dp.Attributes.ToSlice())
				}
			}
		}
	}
	if !found {
		t.Error("no messaging.client.operation.duration histogram")
	}
}
