package store

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// isoOracle is the grammar splitISO implements, as a regular expression.
var isoOracle = regexp.MustCompile(`^([+-][0-9]{6}|[0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|z|[+-][0-9]{2}:?[0-9]{2})?)?)?)?$`)

// oracleJSDate is ParseJSDate as it was written over isoOracle.
func oracleJSDate(s string) (int64, bool) {
	m := isoOracle.FindStringSubmatch(s)
	if m == nil || m[1] == "-000000" {
		return 0, false
	}
	year, _ := strconv.Atoi(strings.TrimPrefix(m[1], "+"))
	num := func(s string, def int) int {
		if s == "" {
			return def
		}
		n, _ := strconv.Atoi(s)
		return n
	}
	month, day := num(m[2], 1), num(m[3], 1)
	hour, minute, sec := num(m[4], 0), num(m[5], 0), num(m[6], 0)
	ms := 0
	if frac := m[7]; frac != "" {
		ms, _ = strconv.Atoi((frac + "00")[:3])
	}
	if month < 1 || month > 12 || day < 1 || day > DaysIn(year, month) ||
		minute > 59 || sec > 59 || hour > 24 || (hour == 24 && (minute != 0 || sec != 0 || ms != 0)) {
		return 0, false
	}
	offset := 0
	if z := m[8]; z != "" && z != "Z" && z != "z" {
		digits := strings.ReplaceAll(z[1:], ":", "")
		oh, _ := strconv.Atoi(digits[:2])
		om, _ := strconv.Atoi(digits[2:])
		if oh > 23 || om > 59 {
			return 0, false
		}
		offset = (oh*60 + om) * 60
		if z[0] == '-' {
			offset = -offset
		}
	}
	t := time.Date(year, time.Month(month), day, hour, minute, sec, ms*int(time.Millisecond), time.UTC)
	return t.UnixMilli() - int64(offset)*1000, true
}

// isoSamples are texts on both sides of every rule of the grammar.
var isoSamples = []string{
	"2026", "2026-11", "2026-11-29", "2026-11-29T08:30", "2026-11-29t08:30:15", "2026-11-29 08:30:15.5",
	"2026-11-29T08:30:15.123456Z", "2026-11-29T08:30:15.123z", "2026-11-29T08:30+05:30", "2026-11-29T08:30:15-0800",
	"+275760-09-13T00:00:00.000Z", "-000001-01-01", "-000000-01-01", "+002026", "2026-02-29", "2024-02-29",
	"2026-11-29T24:00", "2026-11-29T24:00:00.001Z", "2026-11-29T23:60", "2026-11-29T08:30+24:00", "2026-11-29T08:30+05:60",
	"", "2", "202", "20266", "2026-", "2026-1", "2026-11-", "2026-11-2", "2026-11-29T", "2026-11-29T08", "2026-11-29T08:",
	"2026-11-29T08:3", "2026-11-29T08:30:", "2026-11-29T08:30:1", "2026-11-29T08:30:15.", "2026-11-29T08:30:15.Z",
	"2026-11-29T08:30Z ", " 2026", "2026-11-29T08:30+05", "2026-11-29T08:30+05:3", "2026-11-29T08:30+053", "2026-11-29Z",
	"2026Z", "+2026", "-20260", "2026-11-29T08:30:15.12a", "２０２６", "2026-11-29x08:30", "2026-13-01", "2026-00-10",
}

// TestParseJSDateAgainstOracle checks ParseJSDate against the regular
// expression it replaced, text by text.
func TestParseJSDateAgainstOracle(t *testing.T) {
	for _, s := range isoSamples {
		got, ok := ParseJSDate(s)
		want, wantOK := oracleJSDate(s)
		if got != want || ok != wantOK {
			t.Errorf("ParseJSDate(%q) = %d %v, the grammar gives %d %v", s, got, ok, want, wantOK)
		}
	}
}

// FuzzParseJSDate checks ParseJSDate against the regular expression on
// any text.
func FuzzParseJSDate(f *testing.F) {
	for _, s := range isoSamples {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseJSDate(s)
		want, wantOK := oracleJSDate(s)
		if got != want || ok != wantOK {
			t.Errorf("ParseJSDate(%q) = %d %v, the grammar gives %d %v", s, got, ok, want, wantOK)
		}
	})
}

// TestParseJSDateAllocations pins that reading a row's tsp allocates
// nothing.
func TestParseJSDateAllocations(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseJSDate("2026-11-29T08:30:15.123+05:30") }); n != 0 {
		t.Errorf("%v allocations, want 0", n)
	}
}
