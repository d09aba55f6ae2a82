package worldtest

import (
	"testing"
	"time"
)

// T0 is 2026-01-01T00:00:00Z.
var T0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Ms returns t0 + d in epoch milliseconds.
func Ms(d time.Duration) int64 { return T0.Add(d).UnixMilli() }

// ISO returns t0 + d as the platform sends a timestamp: ISO 8601 in UTC
// with milliseconds and Z.
func ISO(d time.Duration) string { return T0.Add(d).UTC().Format("2006-01-02T15:04:05.000Z") }

// ISOMs reads a timestamp the platform sent, which must be an ISO 8601
// text in UTC with milliseconds and Z, as epoch milliseconds.
func ISOMs(t *testing.T, v any) int64 {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v (%T), want an ISO 8601 text", v, v)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000Z", s)
	if err != nil {
		t.Fatalf("timestamp %q: %v", s, err)
	}
	return at.UnixMilli()
}
