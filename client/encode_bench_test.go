package client

import (
	"testing"
	"time"
)

// BenchmarkEncodeRow encodes a row as a device appends it (a time, a
// counter, a reading). The baseline is the same row with its time already
// text, which costs the encoder nothing but the map: what the time adds is
// the difference.
func BenchmarkEncodeRow(b *testing.B) {
	at := time.Date(2026, 11, 29, 18, 40, 0, 123456789, time.UTC)
	for _, bc := range []struct {
		name string
		tsp  any
	}{{"time", at}, {"baseline-text", at.Format(time.RFC3339Nano)}} {
		b.Run(bc.name, func(b *testing.B) {
			row := map[string]any{"tsp": bc.tsp, "seq": int64(7), "value": 41.5}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := encodeValue(row, "args[0]"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
