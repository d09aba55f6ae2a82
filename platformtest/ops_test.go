package platformtest

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
)

// get answers a GET of path from h.
func get(h http.Handler, path string) *httptest.ResponseRecorder {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, path, nil))
	return rec
}

const opsTemplate = `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: v, name: V, dataType: numeric}
`

// TestOpsReadyz: /readyz answers 200 while every realm is in the router
// with its backends attached, 503 naming the realm while it is withheld,
// and 200 again once it is back; /healthz answers 200 throughout.
func TestOpsReadyz(t *testing.T) {
	f := newFixture(t)
	h := f.p.OpsHandler()
	if rec := get(h, "/readyz"); rec.Code != http.StatusOK {
		t.Fatalf("/readyz = %d %q, want 200", rec.Code, rec.Body)
	}
	f.p.WithholdRealm(f.in1.Realm())
	rec := get(h, "/readyz")
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), f.in1.Realm()+" (withheld)") {
		t.Fatalf("/readyz with %s withheld = %d %q, want 503 naming it", f.in1.Realm(), rec.Code, rec.Body)
	}
	if rec := get(h, "/healthz"); rec.Code != http.StatusOK {
		t.Errorf("/healthz = %d, want 200", rec.Code)
	}
	var st OpsStats
	if err := json.Unmarshal(get(h, "/stats").Body.Bytes(), &st); err != nil || st.Ready || st.NotReady == "" {
		t.Errorf("/stats while withheld: ready %v %q (%v), want not ready with a reason", st.Ready, st.NotReady, err)
	}
	f.p.ReleaseRealm(f.in1.Realm())
	if rec := get(h, "/readyz"); rec.Code != http.StatusOK {
		t.Fatalf("/readyz after release = %d %q, want 200", rec.Code, rec.Body)
	}
	if rec := get(h, "/nothing"); rec.Code != http.StatusNotFound {
		t.Errorf("/nothing = %d, want 404", rec.Code)
	}
}

// opsWorkload provisions n devices with app meter, joins each, lets each
// register a device function and call it, append a row and make a refused
// call, and returns the metrics as /metrics serves them.
func opsWorkload(t *testing.T, n int) string {
	t.Helper()
	p := New(t)
	pr := p.AddProject("ops", Key(2))
	app := p.AddApp("meter", opsTemplate, Key(26))
	ins := make([]*Installation, n)
	for i := range ins {
		ins[i] = p.Install(pr.AddDevice(fmt.Sprintf("meter-%d", i)), app, Dev)
	}
	eachAtOnce(t, "devices", ins, 8, func(in *Installation) error { return opsDevice(t, p, in) })
	rec := get(p.OpsHandler(), "/metrics")
	if rec.Code != http.StatusOK || !strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("/metrics = %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	return rec.Body.String()
}

// opsDevice is one device's work in opsWorkload; it stays joined.
func opsDevice(t *testing.T, p *Platform, in *Installation) error {
	c := worldtest.Connect(t, p, in, serialize.MSGPACK)
	ctx := worldtest.Ctx(t)
	fn := wire.DeviceFunction(2, in.Device().Key(), 26, "DEV", "ping")
	err := c.Register(fn, func(context.Context, *wamp.Invocation) client.InvokeResult {
		return client.InvokeResult{Args: wamp.List{"pong"}}
	}, nil)
	if err != nil {
		return fmt.Errorf("register %s: %w", fn, err)
	}
	if _, err := c.Call(ctx, fn, nil, nil, nil, nil); err != nil {
		return fmt.Errorf("call %s: %w", fn, err)
	}
	row := map[string]any{"tsp": 1700000000000, "v": 1.5}
	if _, err := c.Call(ctx, "append.2.26.readings", nil, wamp.List{row}, nil, nil); err != nil {
		return fmt.Errorf("append: %w", err)
	}
	if _, err := c.Call(ctx, "append.2.26.missing", nil, wamp.List{row}, nil, nil); err == nil {
		return fmt.Errorf("append to a table that does not exist succeeded")
	}
	return nil
}

// samples returns the sample lines of a text exposition.
func samples(text string) map[string]string {
	out := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		out[line[:i]] = line[i+1:]
	}
	return out
}

// TestOpsMetricsSeriesIndependentOfDevices: 1 and 1,000 devices doing the
// same work yield the same series (labels name templates, never a
// device), and the counts are those of the work.
func TestOpsMetricsSeriesIndependentOfDevices(t *testing.T) {
	one := samples(opsWorkload(t, 1))
	many := samples(opsWorkload(t, 1000))
	for name := range one {
		if _, ok := many[name]; !ok {
			t.Errorf("series %s at 1 device, not at 1000", name)
		}
	}
	for name := range many {
		if _, ok := one[name]; !ok {
			t.Errorf("series %s at 1000 devices, not at 1", name)
		}
	}
	if len(one) != len(many) {
		t.Errorf("%d series at 1 device, %d at 1000", len(one), len(many))
	}
	for name, want := range map[string]string{
		`flockd_sessions{stage="DEV",role="app"}`:                                                                 "1000",
		`flockd_appends_total{uri="append.{n}.{n}.readings"}`:                                                     "1000",
		`flockd_call_duration_seconds_count{procedure="{n}.{n}.{n}.DEV.ping"}`:                                    "1000",
		`flockd_call_duration_seconds_count{procedure="append.{n}.{n}.readings"}`:                                 "1000",
		`flockd_messages_total{dir="in",type="REGISTER"}`:                                                         "1000",
		`flockd_messages_total{dir="out",type="INVOCATION"}`:                                                      "1000",
		`flockd_refusals_total{type="CALL",uri="append.{n}.{n}.missing",error="` + wire.ErrNoSuchProcedure + `"}`: "1000",
	} {
		if got := many[name]; got != want {
			t.Errorf("%s = %q, want %s", name, got, want)
		}
	}
}

// TestOpsPostgresLatency: the PostgreSQL store's statements are timed
// through pgx's tracer, labelled by their keyword.
func TestOpsPostgresLatency(t *testing.T) {
	worldtest.EachPostgres(t, func(t *testing.T, url string) {
		p := New(t, WithPostgres(url, PostgresScratch()))
		in := p.Install(p.AddProject("plant", Key(2)).AddDevice("press", Key(42)), p.AddApp("interop", opsTemplate, Key(26)), Dev)
		c := worldtest.Connect(t, p, in, client.MSGPACK)
		row := map[string]any{"tsp": 1700000000000, "v": 1.5}
		if _, err := c.Call(worldtest.Ctx(t), "append.2.26.readings", nil, wamp.List{row}, nil, nil); err != nil {
			t.Fatal(err)
		}
		var text strings.Builder
		if err := p.WriteMetrics(&text); err != nil {
			t.Fatal(err)
		}
		s := samples(text.String())
		for _, op := range []string{"select", "create"} {
			if n := s[`flockd_postgres_query_duration_seconds_count{op="`+op+`"}`]; n == "" || n == "0" {
				t.Errorf("no %s statement timed:\n%s", op, text.String())
			}
		}
		if s[`flockd_appends_total{uri="append.{n}.{n}.readings"}`] != "1" {
			t.Errorf("the append is not counted:\n%s", text.String())
		}
	})
}
