// This file holds the Registry: the named metrics, their labelled sets
// (Vec) and their snapshot.

package metrics

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Kind is a metric's type as the text format names it.
type Kind string

// The kinds of metrics.
const (
	KindCounter   Kind = "counter"
	KindGauge     Kind = "gauge"
	KindHistogram Kind = "histogram"
)

// Other is the label value that stands for every value beyond a Vec's
// bound of series.
const Other = "other"

// DefaultMaxSeries bounds the series of one Vec.
const DefaultMaxSeries = 256

// Sample is one series of a family at one moment: its label values (in
// the family's label order) and its value, or its histogram.
type Sample struct {
	Labels []string        `json:"labels,omitempty"`
	Value  float64         `json:"value"`
	Hist   *HistogramValue `json:"histogram,omitempty"`
}

// Family is a named metric with its series.
type Family struct {
	Name    string   `json:"name"`
	Help    string   `json:"help"`
	Kind    Kind     `json:"type"`
	Labels  []string `json:"label_names,omitempty"`
	Samples []Sample `json:"samples"`
}

// family is a registered metric.
type family struct {
	name, help string
	kind       Kind
	labels     []string
	collect    func(emit func(Sample))
}

// Registry holds named metrics. It is safe for concurrent use.
type Registry struct {
	mu   sync.Mutex
	fams []*family
}

// New returns an empty registry.
func New() *Registry { return &Registry{} }

// add registers a family; a name registered twice is a programming
// error.
func (r *Registry) add(f *family) {
	if !validName(f.name) {
		panic(fmt.Sprintf("metrics: invalid metric name %q", f.name))
	}
	for _, l := range f.labels {
		if !validName(l) || strings.HasPrefix(l, "__") || l == "le" {
			panic(fmt.Sprintf("metrics: %s: invalid label name %q", f.name, l))
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, g := range r.fams {
		if g.name == f.name {
			panic(fmt.Sprintf("metrics: metric %s registered twice", f.name))
		}
	}
	r.fams = append(r.fams, f)
}

// validName reports whether s is a valid metric or label name.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if c != '_' && c != ':' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Counter registers and returns a counter.
func (r *Registry) Counter(name, help string) *Counter {
	c := &Counter{}
	r.add(&family{name: name, help: help, kind: KindCounter,
		collect: func(emit func(Sample)) { emit(Sample{Value: float64(c.Value())}) }})
	return c
}

// Gauge registers and returns a gauge.
func (r *Registry) Gauge(name, help string) *Gauge {
	g := &Gauge{}
	r.add(&family{name: name, help: help, kind: KindGauge,
		collect: func(emit func(Sample)) { emit(Sample{Value: float64(g.Value())}) }})
	return g
}

// Histogram registers and returns a histogram with the given bounds
// (nil: DurationBuckets).
func (r *Registry) Histogram(name, help string, bounds []float64) *Histogram {
	h := NewHistogram(bounds)
	r.add(&family{name: name, help: help, kind: KindHistogram,
		collect: func(emit func(Sample)) { v := h.Value(); emit(Sample{Hist: &v}) }})
	return h
}

// CounterVec registers and returns counters labelled by labels.
func (r *Registry) CounterVec(name, help string, labels ...string) *Vec[*Counter] {
	v := newVec(labels, func() *Counter { return &Counter{} })
	r.add(&family{name: name, help: help, kind: KindCounter, labels: labels,
		collect: func(emit func(Sample)) {
			v.each(func(values []string, c *Counter) { emit(Sample{Labels: values, Value: float64(c.Value())}) })
		}})
	return v
}

// HistogramVec registers and returns histograms labelled by labels.
func (r *Registry) HistogramVec(name, help string, bounds []float64, labels ...string) *Vec[*Histogram] {
	v := newVec(labels, func() *Histogram { return NewHistogram(bounds) })
	r.add(&family{name: name, help: help, kind: KindHistogram, labels: labels,
		collect: func(emit func(Sample)) {
			v.each(func(values []string, h *Histogram) { hv := h.Value(); emit(Sample{Labels: values, Hist: &hv}) })
		}})
	return v
}

// Func registers a counter or gauge whose series f reports when the
// registry is read: f calls emit once per series, with one value per
// label. f must not call the registry.
func (r *Registry) Func(name, help string, kind Kind, labels []string, f func(emit func(v float64, values ...string))) {
	r.add(&family{name: name, help: help, kind: kind, labels: labels,
		collect: func(emit func(Sample)) {
			f(func(v float64, values ...string) { emit(Sample{Labels: fit(values, len(labels)), Value: v}) })
		}})
}

// Snapshot returns every family with its series, by name, the series of
// a family ordered by their label values.
func (r *Registry) Snapshot() []Family {
	r.mu.Lock()
	fams := slices.Clone(r.fams)
	r.mu.Unlock()
	slices.SortFunc(fams, func(a, b *family) int { return cmp.Compare(a.name, b.name) })
	out := make([]Family, 0, len(fams))
	for _, f := range fams {
		fam := Family{Name: f.name, Help: f.help, Kind: f.kind, Labels: f.labels}
		f.collect(func(s Sample) { fam.Samples = append(fam.Samples, s) })
		slices.SortFunc(fam.Samples, func(a, b Sample) int { return slices.Compare(a.Labels, b.Labels) })
		out = append(out, fam)
	}
	return out
}

// fit returns values with exactly n entries: missing ones empty, extra
// ones left out.
func fit(values []string, n int) []string {
	if len(values) == n {
		return values
	}
	out := make([]string, n)
	copy(out, values)
	return out
}

// Vec is a metric labelled by a fixed list of label names, holding at
// most DefaultMaxSeries series. Make one with CounterVec or HistogramVec.
type Vec[T any] struct {
	labels []string
	make   func() T
	max    int
	mu     sync.RWMutex
	m      map[string]*series[T]
	other  *series[T] // the series of label values beyond max
}

// series is one labelled series of a Vec.
type series[T any] struct {
	values []string
	m      T
}

func newVec[T any](labels []string, mk func() T) *Vec[T] {
	return &Vec[T]{labels: labels, make: mk, max: DefaultMaxSeries, m: map[string]*series[T]{}}
}

// With returns the metric of the given label values, one per label name
// (missing ones are empty, extra ones ignored). Once the Vec holds its
// bound of series, new label values share the series whose values are
// all Other.
func (v *Vec[T]) With(values ...string) T {
	var buf [128]byte
	k := buf[:0]
	for i, s := range values {
		if i > 0 {
			k = append(k, 0xff)
		}
		k = append(k, s...)
	}
	v.mu.RLock()
	s := v.m[string(k)]
	v.mu.RUnlock()
	if s != nil {
		return s.m
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if s := v.m[string(k)]; s != nil {
		return s.m
	}
	if len(v.m) >= v.max {
		if v.other == nil {
			vals := make([]string, len(v.labels))
			for i := range vals {
				vals[i] = Other
			}
			v.other = &series[T]{values: vals, m: v.make()}
		}
		return v.other.m
	}
	s = &series[T]{values: fit(slices.Clone(values), len(v.labels)), m: v.make()}
	v.m[string(k)] = s
	return s.m
}

// Len returns the number of series, Other's included.
func (v *Vec[T]) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	n := len(v.m)
	if v.other != nil {
		n++
	}
	return n
}

// each calls f for every series.
func (v *Vec[T]) each(f func(values []string, m T)) {
	v.mu.RLock()
	all := make([]*series[T], 0, len(v.m)+1)
	for _, s := range v.m {
		all = append(all, s)
	}
	if v.other != nil {
		all = append(all, v.other)
	}
	v.mu.RUnlock()
	for _, s := range all {
		f(s.values, s.m)
	}
}
