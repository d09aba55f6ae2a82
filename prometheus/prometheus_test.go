package prometheus_test

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/gammazero/nexus/v3/wamp/crsign"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/prometheus"
)

const tpl = `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: v, name: V, dataType: numeric}
`

// device joins in's realm with its credential.
func device(t *testing.T, ctx context.Context, p *platformtest.Platform, in *platformtest.Installation) *client.Client {
	t.Helper()
	id, secret := in.Credentials()
	c, err := client.ConnectNet(ctx, p.URL(), client.Config{
		Realm:        in.Realm(),
		HelloDetails: wamp.Dict{"authid": id},
		AuthHandlers: map[string]client.AuthFunc{"wampcra": func(c *wamp.Challenge) (string, wamp.Dict) {
			return crsign.RespondChallenge(secret, c, nil), wamp.Dict{}
		}},
		Serialization: client.MSGPACK,
		Logger:        log.New(io.Discard, "", 0),
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestMetricsParse: what /metrics serves after a device's traffic parses
// with Prometheus's text parser, with the types and values of the
// traffic: sessions, messages, call latency, appends, refusals.
func TestMetricsParse(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := platformtest.New(t)
	pr := p.AddProject("plant", platformtest.Key(2))
	app := p.AddApp("meter", tpl, platformtest.Key(26))
	in := p.Install(pr.AddDevice("meter-1"), app, platformtest.Dev)
	c := device(t, ctx, p, in)
	row := map[string]any{"tsp": 1700000000000, "v": 1.5}
	if _, err := c.Call(ctx, "append.2.26.readings", nil, wamp.List{row}, nil, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Call(ctx, "com.example.nobody", nil, nil, nil, nil); err == nil {
		t.Fatal("a call of nobody's procedure answered")
	}
	if err := c.Publish("com.example.news", wamp.Dict{wamp.OptAcknowledge: true}, wamp.List{1}, nil); err != nil {
		t.Fatal(err)
	}

	srv := httptest.NewServer(p.OpsHandler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + platformtest.OpsMetricsPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if f := expfmt.ResponseFormat(resp.Header); f.FormatType() != expfmt.TypeTextPlain {
		t.Errorf("/metrics Content-Type %q is not Prometheus's text format", resp.Header.Get("Content-Type"))
	}
	fams, err := prometheus.Parse(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]dto.MetricType{
		"flockd_sessions":              dto.MetricType_GAUGE,
		"flockd_messages_total":        dto.MetricType_COUNTER,
		"flockd_message_bytes_total":   dto.MetricType_COUNTER,
		"flockd_call_duration_seconds": dto.MetricType_HISTOGRAM,
		"flockd_appends_total":         dto.MetricType_COUNTER,
		"flockd_refusals_total":        dto.MetricType_COUNTER,
		"flockd_storage_full_total":    dto.MetricType_COUNTER,
		"flockd_slow_link_drops_total": dto.MetricType_COUNTER,
		"flockd_file_bytes_total":      dto.MetricType_COUNTER,
		"flockd_links_unauthenticated": dto.MetricType_GAUGE,
		"flockd_links_admission_line":  dto.MetricType_GAUGE,
		"flockd_auth_busy_total":       dto.MetricType_COUNTER,
		"flockd_accept_errors_total":   dto.MetricType_COUNTER,
		"flockd_links":                 dto.MetricType_GAUGE,
	}
	for name, typ := range want {
		f := fams[name]
		if f == nil {
			t.Errorf("no family %s", name)
			continue
		}
		if f.GetType() != typ {
			t.Errorf("%s is a %v, want %v", name, f.GetType(), typ)
		}
	}
	if got := value(t, fams, "flockd_sessions", map[string]string{"stage": "DEV", "role": "app"}); got != 1 {
		t.Errorf("sessions = %v, want 1", got)
	}
	if got := value(t, fams, "flockd_appends_total", map[string]string{"uri": "append.{n}.{n}.readings"}); got != 1 {
		t.Errorf("appends = %v, want 1", got)
	}
	if got := value(t, fams, "flockd_refusals_total", map[string]string{"type": "CALL", "uri": "com.example.nobody",
		"error": "wamp.error.no_such_procedure"}); got != 1 {
		t.Errorf("refusals = %v, want 1", got)
	}
	if got := value(t, fams, "flockd_messages_total", map[string]string{"dir": "out", "type": "PUBLISHED"}); got != 1 {
		t.Errorf("PUBLISHED sent = %v, want 1", got)
	}
	h := metric(t, fams, "flockd_call_duration_seconds", map[string]string{"procedure": "append.{n}.{n}.readings"}).GetHistogram()
	if h.GetSampleCount() != 1 || len(h.GetBucket()) == 0 || h.GetBucket()[len(h.GetBucket())-1].GetCumulativeCount() != 1 {
		t.Errorf("the append's latency histogram: %v", h)
	}
	gathered, err := prometheus.Gather(p)
	if err != nil || len(gathered) != len(fams) {
		t.Errorf("Gather: %d families (%v), /metrics %d", len(gathered), err, len(fams))
	}
}

// metric returns the series of family name with exactly labels.
func metric(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) *dto.Metric {
	t.Helper()
	f := fams[name]
	if f == nil {
		t.Fatalf("no family %s", name)
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if labels[l.GetName()] != l.GetValue() {
				continue next
			}
		}
		return m
	}
	t.Fatalf("%s has no series %v: %v", name, labels, f)
	return nil
}

// value returns the value of a counter or gauge series.
func value(t *testing.T, fams map[string]*dto.MetricFamily, name string, labels map[string]string) float64 {
	t.Helper()
	m := metric(t, fams, name, labels)
	if c := m.GetCounter(); c != nil {
		return c.GetValue()
	}
	return m.GetGauge().GetValue()
}
