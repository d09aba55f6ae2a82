package prometheus_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	prom "github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	sdk "github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/outbox"
	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/prometheus"
)

var quiet = slog.New(slog.DiscardHandler)

// scrape gathers reg and parses what it writes in the text format with
// Prometheus's text parser, as a scraper would read it.
func scrape(t *testing.T, reg *prom.Registry) map[string]*dto.MetricFamily {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	enc := expfmt.NewEncoder(&b, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range mfs {
		if err := enc.Encode(mf); err != nil {
			t.Fatal(err)
		}
	}
	fams, err := prometheus.Parse(&b)
	if err != nil {
		t.Fatal(err)
	}
	return fams
}

// sdkClient starts a client of in with opts.
func sdkClient(t *testing.T, ctx context.Context, in *platformtest.Installation, opts ...sdk.Option) *sdk.Client {
	t.Helper()
	c, err := sdk.New(append([]sdk.Option{sdk.WithEnv(in.Env()), sdk.WithLogger(quiet)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop(context.Background()) })
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestExporter: a client's traffic and Stats, collected by the exporter
// and scraped in the text format, parse with Prometheus's parser into
// the series the exporter names, labeled by templates: calls of the same
// function on two devices share one series.
func TestExporter(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := platformtest.New(t, platformtest.WithoutRecording())
	pr := p.AddProject("plant", platformtest.Key(2))
	app := p.AddApp("meter", tpl, platformtest.Key(26))
	inA := p.Install(pr.AddDevice("meter-1", platformtest.Key(42)), app, platformtest.Dev)
	var keys []int
	for _, name := range []string{"meter-2", "meter-3"} {
		in := p.Install(pr.AddDevice(name), app, platformtest.Dev)
		keys = append(keys, in.Device().Key())
		callee := sdkClient(t, ctx, in)
		if _, err := callee.RegisterDeviceFunction(ctx, "echo", func(_ context.Context, inv *sdk.Invocation) (any, error) {
			return inv.Args[0], nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	exp := prometheus.New()
	c := sdkClient(t, ctx, inA, sdk.WithHooks(exp))
	exp.Watch(c)
	reg := prom.NewRegistry()
	reg.MustRegister(exp)

	row := map[string]any{"tsp": time.Now().UTC(), "v": 1.5}
	for range 3 {
		if err := c.Publish(ctx, "com.example.news", row); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, err := c.AppendToTable(ctx, "readings", row); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CallDeviceFunction(ctx, keys[0], "echo", 1); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "com.example.nobody"); err == nil {
		t.Fatal("a call of nobody's procedure answered")
	}
	before := scrape(t, reg)
	if _, err := c.CallDeviceFunction(ctx, keys[1], "echo", 1); err != nil {
		t.Fatal(err)
	}
	fams := scrape(t, reg)

	const ops = "ironflock_client_operation_duration_seconds"
	if n, m := len(before[ops].GetMetric()), len(fams[ops].GetMetric()); n != m {
		t.Errorf("a call of a second device added series: %d before, %d after", n, m)
	}
	count := func(op, dest, outcome string) uint64 {
		return metric(t, fams, ops, map[string]string{"operation": op, "destination": dest, "outcome": outcome}).GetHistogram().GetSampleCount()
	}
	if n := count("publish", "com.example.news", "ok"); n != 3 {
		t.Errorf("publications counted %d, want 3", n)
	}
	if n := count("append", "readings", "ok"); n != 2 {
		t.Errorf("appends counted %d, want 2", n)
	}
	var callDest string
	for _, m := range fams[ops].GetMetric() {
		for _, l := range m.GetLabel() {
			if l.GetName() == "destination" && strings.HasSuffix(l.GetValue(), ".echo") {
				callDest = l.GetValue()
			}
			if strings.Contains(l.GetValue(), "42") || strings.Contains(l.GetValue(), "26") {
				t.Errorf("a label holds a key: %s=%q", l.GetName(), l.GetValue())
			}
		}
	}
	t.Logf("the device function's destination: %s", callDest)
	if !strings.Contains(callDest, "{key}") {
		t.Fatalf("the device function's destination %q is not a template", callDest)
	}
	if n := count("call", callDest, "ok"); n != 2 {
		t.Errorf("calls of echo on two devices counted %d in their one series, want 2", n)
	}
	if n := count("call", "com.example.nobody", "error"); n != 1 {
		t.Errorf("refused calls counted %d, want 1", n)
	}
	if v := value(t, fams, "ironflock_client_refusals_total", map[string]string{"operation": "call",
		"destination": "com.example.nobody", "error": "wamp.error.no_such_procedure"}); v != 1 {
		t.Errorf("refusals = %v, want 1", v)
	}
	if v := value(t, fams, "ironflock_client_sent_bytes_total", map[string]string{"operation": "publish", "destination": "com.example.news"}); v <= 0 {
		t.Errorf("bytes of the publications = %v", v)
	}
	st := c.Stats()
	if v := value(t, fams, "ironflock_client_messages_total", map[string]string{"direction": "out"}); v < 9 || v > float64(st.MessagesOut) {
		t.Errorf("messages out = %v, want from 9 (3 publications, 2 appends, 3 calls, the join) to Stats' %d", v, st.MessagesOut)
	}
	if v := value(t, fams, "ironflock_client_bytes_total", map[string]string{"direction": "in"}); v <= 0 || v > float64(st.BytesIn) {
		t.Errorf("bytes in = %v, Stats %d", v, st.BytesIn)
	}
	for name, want := range map[string]float64{"ironflock_client_sessions_total": 1, "ironflock_client_reconnects_total": 0,
		"ironflock_outbox_rows": 0, "ironflock_outbox_bytes": 0} {
		if v := value(t, fams, name, nil); v != want {
			t.Errorf("%s = %v, want %v", name, v, want)
		}
	}
	for _, kind := range []string{"call", "ack"} {
		if v := value(t, fams, "ironflock_client_pending", map[string]string{"kind": kind}); v != 0 {
			t.Errorf("pending %s = %v, want 0", kind, v)
		}
	}
	want := map[string]dto.MetricType{
		ops:                                   dto.MetricType_HISTOGRAM,
		"ironflock_client_messages_total":     dto.MetricType_COUNTER,
		"ironflock_client_sessions_total":     dto.MetricType_COUNTER,
		"ironflock_client_pending":            dto.MetricType_GAUGE,
		"ironflock_outbox_rows":               dto.MetricType_GAUGE,
		"ironflock_outbox_oldest_age_seconds": dto.MetricType_GAUGE,
	}
	for name, typ := range want {
		if f := fams[name]; f == nil || f.GetType() != typ {
			t.Errorf("family %s: %v, want a %v", name, f, typ)
		}
	}
}

// TestExporterOutboxDepth: the rows waiting in an outbox of a client
// that is not connected show in the exporter's outbox series.
func TestExporterOutboxDepth(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p := platformtest.New(t, platformtest.WithoutRecording())
	app := p.AddApp("meter", tpl)
	in := p.Install(p.AddDevice("meter-1"), app, platformtest.Dev)
	exp := prometheus.New()
	c, err := sdk.New(sdk.WithEnv(in.Env()), sdk.WithLogger(quiet), sdk.WithHooks(exp))
	if err != nil {
		t.Fatal(err)
	}
	exp.Watch(c)
	ob, err := outbox.Open(c, t.TempDir(), outbox.WithHooks(exp))
	if err != nil {
		t.Fatal(err)
	}
	defer ob.Close()
	for range 3 {
		if _, err := ob.Append(ctx, "readings", map[string]any{"tsp": time.Now().UTC(), "v": 1.5}); err != nil {
			t.Fatal(err)
		}
	}
	reg := prom.NewRegistry()
	reg.MustRegister(exp)
	fams := scrape(t, reg)
	if v := value(t, fams, "ironflock_outbox_rows", nil); v != 3 {
		t.Errorf("outbox rows = %v, want 3", v)
	}
	if v, st := value(t, fams, "ironflock_outbox_bytes", nil), ob.Stats(); v <= 0 || v != float64(st.PendingBytes) {
		t.Errorf("outbox bytes = %v, the outbox's Stats %+v", v, st)
	}
	if v := value(t, fams, "ironflock_outbox_oldest_age_seconds", nil); v < 0 {
		t.Errorf("oldest age = %v", v)
	}
}
