// This file holds how stored timestamps are read and written as text:
// ISO 8601 texts as JavaScript's Date reads them (docs/wire.md §9) and the
// wire form of a timestamp (ISOTime).

package store

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

var isoDateTime = regexp.MustCompile(`^([+-][0-9]{6}|[0-9]{4})(?:-([0-9]{2})(?:-([0-9]{2})(?:[Tt ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]+))?)?(Z|z|[+-][0-9]{2}:?[0-9]{2})?)?)?)?$`)

// ParseJSDate reads an ISO 8601 text the way JavaScript's Date does and
// returns epoch milliseconds: YYYY, YYYY-MM, YYYY-MM-DD (±YYYYYY for
// extended years), optionally followed by T, t or a space and
// hh:mm[:ss[.fraction]] and Z, z, ±hh:mm or ±hhmm. A text without zone is
// UTC (the platform runs in UTC); 24:00 is only allowed as the exact end of
// a day; the day must exist. Other texts V8 may guess at are refused.
func ParseJSDate(s string) (int64, bool) {
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

func DaysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

// parseDMY reads d.m.yyyy [hh:mm[:ss]] (UTC), a form filters on timestamp
// columns accept.

// ISOTime is the wire form of a timestamp of epoch milliseconds ms: the
// ISO 8601 text JavaScript's Date.prototype.toISOString gives (the data
// backend sends timestamps as its driver reads them, JavaScript Dates,
// which JSON and msgpack carry as that text): UTC with milliseconds and Z,
// 2026-01-01T00:00:00.000Z; a year outside 0…9999 as ±YYYYYY. One
// allocation, the string.
func ISOTime(ms int64) string {
	var buf [32]byte
	return string(AppendISOTime(buf[:0], ms))
}

// AppendISOTime appends ISOTime(ms) to b.
func AppendISOTime(b []byte, ms int64) []byte {
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
