package fleetdb

import (
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

func TestParseJSDate(t *testing.T) {
	base := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	ok := map[string]time.Time{
		"2026":                          time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
		"2026-03":                       time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
		"2026-03-04":                    time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC),
		"2026-03-04T05:06":              base.Add(-7 * time.Second),
		"2026-03-04T05:06:07Z":          base,
		"2026-03-04t05:06:07z":          base,
		"2026-03-04 05:06:07":           base,
		"2026-03-04T05:06:07.1234Z":     base.Add(123 * time.Millisecond),
		"2026-03-04T07:06:07+02:00":     base,
		"2026-03-04T03:06:07-0200":      base,
		"2026-03-04T24:00:00Z":          time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC),
		"+002026-03-04T05:06:07Z":       base,
		"2024-02-29":                    time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC),
		"-000001-01-01T00:00:00Z":       time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		"1969-12-31T23:59:59.999Z":      time.UnixMilli(-1).UTC(),
		"2026-03-04T05:06:07.000+00:00": base,
	}
	for s, want := range ok {
		got, valid := store.ParseJSDate(s)
		if !valid || got != want.UnixMilli() {
			t.Errorf("store.ParseJSDate(%q) = %d %v, want %d", s, got, valid, want.UnixMilli())
		}
	}
	for _, s := range []string{"", "2026-02-30", "2026-13-01", "2026-03-04T24:00:01Z", "2026-03-04T05:60", "20260304T050607Z",
		"2026-03-04T05", "2026-03-04T05:06:07+02", "-000000-01-01", "soon", "2026-3-4", "2026-03-04T05:06:07 Z"} {
		if got, valid := store.ParseJSDate(s); valid {
			t.Errorf("store.ParseJSDate(%q) = %d, want invalid", s, got)
		}
	}
	if got, valid := parseDMY("2.1.2026 13:05"); !valid || got != time.Date(2026, 1, 2, 13, 5, 0, 0, time.UTC).UnixMilli() {
		t.Errorf("parseDMY = %d %v", got, valid)
	}
	if _, valid := parseDMY("31.2.2026"); valid {
		t.Error("parseDMY accepted 31.2.2026")
	}
}

// TestISOTime: timestamps go out as JavaScript's toISOString writes them,
// UTC with milliseconds and Z, extended years with a sign and six digits,
// and store.ParseJSDate reads each back; one allocation, the string.
func TestISOTime(t *testing.T) {
	cases := map[int64]string{
		0:                 "1970-01-01T00:00:00.000Z",
		-1:                "1969-12-31T23:59:59.999Z",
		1767225600123:     "2026-01-01T00:00:00.123Z",
		-62167219200000:   "0000-01-01T00:00:00.000Z",
		-62198755200000:   "-000001-01-01T00:00:00.000Z",
		253402300799999:   "9999-12-31T23:59:59.999Z",
		253402300800000:   "+010000-01-01T00:00:00.000Z",
		8640000000000000:  "+275760-09-13T00:00:00.000Z",
		-8640000000000000: "-271821-04-20T00:00:00.000Z",
	}
	for ms, want := range cases {
		if got := store.ISOTime(ms); got != want {
			t.Errorf("store.ISOTime(%d) = %q, want %q", ms, got, want)
		}
		if back, ok := store.ParseJSDate(want); !ok || back != ms {
			t.Errorf("store.ParseJSDate(%q) = %d, %v, want %d", want, back, ok, ms)
		}
	}
	var sink string
	if n := testing.AllocsPerRun(100, func() { sink = store.ISOTime(1767225600123) }); n != 1 || sink == "" {
		t.Errorf("store.ISOTime allocates %v times, want 1", n)
	}
}
