// This file holds the file service's metrics (internal/metrics): the
// bytes of objects stored and the bytes of objects read, through the
// router (inline) and the HTTP routes alike.

package fleetfiles

import (
	"net/http"

	"github.com/flockgo/ironflock/platformtest/internal/metrics"
)

// fileMetrics count the bytes of objects.
type fileMetrics struct {
	stored, read metrics.Counter
}

// registerMetrics registers the service's metrics in reg (nil: none).
func (s *Service) registerMetrics(reg *metrics.Registry) {
	if reg == nil {
		return
	}
	reg.Func("flockd_file_bytes_total",
		"Bytes of file objects by direction: in, stored (put, upload, copy); out, read (inline gets and HTTP reads).",
		metrics.KindCounter, []string{"dir"}, func(emit func(float64, ...string)) {
			emit(float64(s.met.stored.Value()), "in")
			emit(float64(s.met.read.Value()), "out")
		})
}

// countingWriter counts the body bytes written to a response.
type countingWriter struct {
	http.ResponseWriter
	c *metrics.Counter
}

// Write writes b and counts what was written.
func (w countingWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	w.c.Add(uint64(n))
	return n, err
}
