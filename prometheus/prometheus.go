// Package prometheus is the SDK's Prometheus exporter and reads flockd's
// metrics with Prometheus's own parser. Exporter collects a client's
// Stats and what its hooks and an outbox's report, labeled by templates
// only. Gather turns what a platform's /metrics endpoint serves
// (platformtest.Platform.WriteMetrics, flockd -ops) into the metric
// families of Prometheus's data model, for tests that assert on them and
// for programs that hand them on.
//
// It is a module of its own (github.com/flockgo/ironflock/prometheus), so
// that the SDK's main module, and a device program, link no Prometheus
// code: flockd writes the text format itself (its internal metrics
// package), and this module's test proves that Prometheus parses it.
package prometheus

import (
	"bytes"
	"fmt"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/flockgo/ironflock/platformtest"
)

// Gather parses the platform's metrics, by family name.
func Gather(p *platformtest.Platform) (map[string]*dto.MetricFamily, error) {
	var b bytes.Buffer
	if err := p.WriteMetrics(&b); err != nil {
		return nil, fmt.Errorf("prometheus: write the platform's metrics: %w", err)
	}
	return Parse(&b)
}

// Parse parses metrics in the Prometheus text exposition format, as
// flockd's /metrics serves them, by family name.
func Parse(r io.Reader) (map[string]*dto.MetricFamily, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return nil, fmt.Errorf("prometheus: parse the metrics: %w", err)
	}
	return fams, nil
}
