// This file holds how the fake data backend reads times: ISO 8601 texts as
// JavaScript's Date reads them (docs/wire.md §9), the d.m.yyyy form filters
// on timestamp columns also accept, and the time range of a read. It
// serves no URI.

package fleetdb

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
)

var (
	isoDateTime = regexp.MustCompile(`^([+-][0-9]{6}|[0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|z|[+-][0-9]{2}:?[0-9]{2})?)?)?)?$`)
	dmyDateTime = regexp.MustCompile(`^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})(?:[ T]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?)?$`)
)

// parseJSDate reads an ISO 8601 text the way JavaScript's Date does and
// returns epoch milliseconds: YYYY, YYYY-MM, YYYY-MM-DD (±YYYYYY for
// extended years), optionally followed by T, t or a space and
// hh:mm[:ss[.fraction]] and Z, z, ±hh:mm or ±hhmm. A text without zone is
// UTC (the platform runs in UTC); 24:00 is only allowed as the exact end of
// a day; the day must exist. Other texts V8 may guess at are refused.
func parseJSDate(s string) (int64, bool) {
	m := isoDateTime.FindStringSubmatch(s)
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
		frac = (frac + "00")[:3]
		ms, _ = strconv.Atoi(frac)
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) ||
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

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseDMY reads d.m.yyyy [hh:mm[:ss]] (UTC), a form filters on timestamp
// columns accept.
func parseDMY(s string) (int64, bool) {
	m := dmyDateTime.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n := func(i int) int { v, _ := strconv.Atoi(m[i]); return v }
	day, month, year := n(1), n(2), n(3)
	hour, minute, sec := n(4), n(5), n(6)
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
		return 0, false
	}
	return time.Date(year, time.Month(month), day, hour, minute, sec, 0, time.UTC).UnixMilli(), true
}

// filterTime coerces a filter value compared with a timestamp column:
// numbers and integer texts are epoch milliseconds, other texts ISO 8601 or
// d.m.yyyy.
func filterTime(v any) (int64, bool) {
	switch x := v.(type) {
	case string:
		s := strings.TrimSpace(x)
		if intText.MatchString(s) {
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
		if ms, ok := parseJSDate(s); ok {
			return ms, true
		}
		return parseDMY(s)
	case time.Time:
		return x.UnixMilli(), true
	}
	if isNumber(v) {
		f := numberOf(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return int64(math.Floor(f)), true
	}
	return 0, false
}

// boundMs reads a time range bound: a number of epoch milliseconds or an
// ISO text. ok is false for a text JavaScript's Date cannot read.
func boundMs(v any) (int64, bool) {
	switch x := v.(type) {
	case string:
		return parseJSDate(x)
	}
	f := numberOf(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, false
	}
	return int64(math.Floor(f)), true
}

// timeRangeBounds returns the start and end of a validated timeRange
// (array [start, end] or object {start, end}), both possibly absent.
func timeRangeBounds(tr any) (start, end any) {
	switch x := tr.(type) {
	case []any:
		return x[0], x[1]
	case map[string]any:
		return x["start"], x["end"]
	}
	return nil, nil
}

// truthy reports JavaScript truthiness of a bound: null, 0, "" and NaN are
// falsy.
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case string:
		return x != ""
	case bool:
		return x
	}
	if isNumber(v) {
		f := numberOf(v)
		return f != 0 && !math.IsNaN(f)
	}
	return true
}

// historyRange parses a read's time range (docs/wire.md §9): only truthy
// bounds count, truncated to whole seconds. A bound that is not a date
// fails with invalid_time_range.
func historyRange(tr any) (start, end Bound, err *fleetError) {
	s, e := timeRangeBounds(tr)
	parse := func(v any, name string) (Bound, *fleetError) {
		if !truthy(v) {
			return Bound{}, nil
		}
		ms, ok := boundMs(v)
		if !ok {
			return Bound{}, dataRefusal(errInvalidTimeRange, "timeRange %s %s is not a date", name, jsonText(v))
		}
		return Bound{Set: true, Ms: ms / 1000 * 1000}, nil
	}
	if start, err = parse(s, "start"); err != nil {
		return
	}
	end, err = parse(e, "end")
	return
}

// isoTime is the wire form of a timestamp of epoch milliseconds ms: the
// ISO 8601 text JavaScript's Date.prototype.toISOString gives (the data
// backend sends timestamps as its driver reads them, JavaScript Dates,
// which JSON and msgpack carry as that text): UTC with milliseconds and Z,
// 2026-01-01T00:00:00.000Z; a year outside 0…9999 as ±YYYYYY. One
// allocation, the string.
func isoTime(ms int64) string {
	var buf [32]byte
	return string(appendISOTime(buf[:0], ms))
}

// appendISOTime appends isoTime(ms) to b.
func appendISOTime(b []byte, ms int64) []byte {
	t := time.UnixMilli(ms).UTC()
	year, month, day := t.Date()
	hour, minute, sec := t.Clock()
	switch {
	case year < 0:
		b = append(b, '-')
		b = appendDigits(b, -year, 6)
	case year > 9999:
		b = append(b, '+')
		b = appendDigits(b, year, 6)
	default:
		b = appendDigits(b, year, 4)
	}
	b = append(b, '-')
	b = appendDigits(b, int(month), 2)
	b = append(b, '-')
	b = appendDigits(b, day, 2)
	b = append(b, 'T')
	b = appendDigits(b, hour, 2)
	b = append(b, ':')
	b = appendDigits(b, minute, 2)
	b = append(b, ':')
	b = appendDigits(b, sec, 2)
	b = append(b, '.')
	b = appendDigits(b, t.Nanosecond()/int(time.Millisecond), 3)
	return append(b, 'Z')
}

// appendDigits appends n ≥ 0 in decimal, zero-padded to width digits.
func appendDigits(b []byte, n, width int) []byte {
	var d [20]byte
	i := len(d)
	for n > 0 || i > len(d)-width {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[i:]...)
}
