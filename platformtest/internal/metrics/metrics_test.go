package metrics

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestWriteText(t *testing.T) {
	r := New()
	c := r.Counter("x_total", "Things.\nMore \\ things.")
	c.Add(3)
	g := r.Gauge("depth", "Depth.")
	g.Set(-2)
	v := r.CounterVec("msgs_total", "Messages.", "type", "dir")
	v.With("CALL", "in").Inc()
	v.With("CALL", "in").Inc()
	v.With("a\"b\\c\nd", "out").Add(5)
	h := r.Histogram("lat_seconds", "Latency.", []float64{0.1, 1})
	h.Observe(0.05)
	h.Observe(0.5)
	h.Observe(5)
	r.Func("sessions", "Sessions.", KindGauge, []string{"stage"}, func(emit func(float64, ...string)) {
		emit(2, "PROD")
		emit(7, "DEV")
	})
	var b strings.Builder
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	want := `# HELP depth Depth.
# TYPE depth gauge
depth -2
# HELP lat_seconds Latency.
# TYPE lat_seconds histogram
lat_seconds_bucket{le="0.1"} 1
lat_seconds_bucket{le="1"} 2
lat_seconds_bucket{le="+Inf"} 3
lat_seconds_sum 5.55
lat_seconds_count 3
# HELP msgs_total Messages.
# TYPE msgs_total counter
msgs_total{type="CALL",dir="in"} 2
msgs_total{type="a\"b\\c\nd",dir="out"} 5
# HELP sessions Sessions.
# TYPE sessions gauge
sessions{stage="DEV"} 7
sessions{stage="PROD"} 2
# HELP x_total Things.\nMore \\ things.
# TYPE x_total counter
x_total 3
`
	if got := b.String(); got != want {
		t.Errorf("WriteText:\n%s\nwant:\n%s", got, want)
	}
}

func TestVecBound(t *testing.T) {
	r := New()
	v := r.CounterVec("uris_total", "URIs.", "uri")
	for i := range DefaultMaxSeries + 50 {
		v.With(fmt.Sprintf("u%d", i)).Inc()
	}
	if n := v.Len(); n != DefaultMaxSeries+1 {
		t.Fatalf("series = %d, want %d (the bound and %q)", n, DefaultMaxSeries+1, Other)
	}
	if got := v.With(Other + "-not").Value(); got != 50 {
		t.Errorf("the %q series counts %d, want 50", Other, got)
	}
	if got := v.With("u3").Value(); got != 1 {
		t.Errorf("u3 = %d, want 1", got)
	}
}

func TestVecConcurrent(t *testing.T) {
	r := New()
	v := r.CounterVec("c_total", "C.", "a", "b")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for i := range 1000 {
				v.With("x", fmt.Sprint(i%3)).Inc()
			}
		})
	}
	wg.Wait()
	var sum uint64
	for _, b := range []string{"0", "1", "2"} {
		sum += v.With("x", b).Value()
	}
	if sum != 8000 || v.Len() != 3 {
		t.Errorf("sum %d over %d series, want 8000 over 3", sum, v.Len())
	}
}

func TestTemplate(t *testing.T) {
	long := strings.Repeat("é", 100)
	for in, want := range map[string]string{
		"append.12.34.sensordata":    "append.{n}.{n}.sensordata",
		"12.5001.34.DEV.read_sensor": "{n}.{n}.{n}.DEV.read_sensor",
		"com.example.topic":          "com.example.topic",
		"files.write.put":            "files.write.put",
		"a1.2b":                      "a1.2b",
		"":                           "",
		long:                         strings.Repeat("é", 60),
	} {
		if got := Template(in); got != want {
			t.Errorf("Template(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWithAllocs(t *testing.T) {
	r := New()
	v := r.CounterVec("c_total", "C.", "a", "b")
	v.With("x", "y")
	if n := testing.AllocsPerRun(100, func() { v.With("x", "y").Inc() }); n != 0 {
		t.Errorf("With of a known series allocates %v times", n)
	}
}
