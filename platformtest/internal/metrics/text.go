// This file writes a registry in the Prometheus text exposition format,
// version 0.0.4.

package metrics

import (
	"bufio"
	"io"
	"math"
	"strconv"
	"strings"
)

// ContentType is the media type of WriteText's output.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// WriteText writes every family in the Prometheus text exposition
// format: a HELP and a TYPE line, then one line per series (a
// histogram's cumulative buckets, its sum and its count).
func (r *Registry) WriteText(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 32<<10)
	var line []byte
	for _, f := range r.Snapshot() {
		line = append(line[:0], "# HELP "...)
		line = append(line, f.Name...)
		line = append(line, ' ')
		line = appendEscaped(line, f.Help, false)
		line = append(line, "\n# TYPE "...)
		line = append(line, f.Name...)
		line = append(line, ' ')
		line = append(line, f.Kind...)
		line = append(line, '\n')
		for _, s := range f.Samples {
			if s.Hist == nil {
				line = appendSeries(line, f.Name, f.Labels, s.Labels, "", "", s.Value)
				continue
			}
			h := s.Hist
			for i, b := range h.Bounds {
				line = appendSeries(line, f.Name+"_bucket", f.Labels, s.Labels, "le", formatFloat(b), float64(h.Cumulative[i]))
			}
			line = appendSeries(line, f.Name+"_bucket", f.Labels, s.Labels, "le", "+Inf", float64(h.Count))
			line = appendSeries(line, f.Name+"_sum", f.Labels, s.Labels, "", "", h.Sum)
			line = appendSeries(line, f.Name+"_count", f.Labels, s.Labels, "", "", float64(h.Count))
		}
		if _, err := bw.Write(line); err != nil {
			return err
		}
		line = line[:0]
	}
	return bw.Flush()
}

// appendSeries appends one sample line: name{labels,extra="value"} v.
func appendSeries(b []byte, name string, names, values []string, extra, extraValue string, v float64) []byte {
	b = append(b, name...)
	if len(names) > 0 || extra != "" {
		b = append(b, '{')
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, n...)
			b = append(b, '=', '"')
			if i < len(values) {
				b = appendEscaped(b, values[i], true)
			}
			b = append(b, '"')
		}
		if extra != "" {
			if len(names) > 0 {
				b = append(b, ',')
			}
			b = append(b, extra...)
			b = append(b, '=', '"')
			b = append(b, extraValue...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = append(b, formatFloat(v)...)
	return append(b, '\n')
}

// appendEscaped appends s escaped as the format wants: backslash and
// newline always, the double quote in label values.
func appendEscaped(b []byte, s string, quote bool) []byte {
	if !strings.ContainsAny(s, "\\\n\"") {
		return append(b, s...)
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, '\\', '\\')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '"' && quote:
			b = append(b, '\\', '"')
		default:
			b = append(b, c)
		}
	}
	return b
}

// formatFloat formats v as the format wants (+Inf, -Inf, NaN).
func formatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}
