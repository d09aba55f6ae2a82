// This file holds how stored timestamps are read and written as text:
// ISO 8601 texts as JavaScript's Date reads them (docs/wire.md §9) and the
// wire form of a timestamp (ISOTime).

package store

import "time"

// ParseJSDate reads an ISO 8601 text the way JavaScript's Date does and
// returns epoch milliseconds: YYYY, YYYY-MM, YYYY-MM-DD (±YYYYYY for
// extended years), optionally followed by T, t or a space and
// hh:mm[:ss[.fraction]] and Z, z, ±hh:mm or ±hhmm. A text without zone is
// UTC (the platform runs in UTC); 24:00 is only allowed as the exact end of
// a day; the day must exist. Other texts V8 may guess at are refused. It
// allocates nothing: every append of a row reads its tsp here.
func ParseJSDate(s string) (int64, bool) {
	p, ok := splitISO(s)
	if !ok || p.year == "-000000" {
		return 0, false
	}
	var year int
	switch p.year[0] {
	case '+':
		year = atoi(p.year[1:])
	case '-':
		year = -atoi(p.year[1:])
	default:
		year = atoi(p.year)
	}
	month, day := numOr(p.month, 1), numOr(p.day, 1)
	hour, minute, sec := numOr(p.hour, 0), numOr(p.minute, 0), numOr(p.second, 0)
	ms := 0
	for i := range 3 { // the fraction's first three digits, as milliseconds
		ms *= 10
		if i < len(p.fraction) {
			ms += int(p.fraction[i] - '0')
		}
	}
	if month < 1 || month > 12 || day < 1 || day > DaysIn(year, month) ||
		minute > 59 || sec > 59 || hour > 24 || (hour == 24 && (minute != 0 || sec != 0 || ms != 0)) {
		return 0, false
	}
	offset := 0
	if z := p.zone; z != "" && z != "Z" && z != "z" {
		oh, om := atoi(z[1:3]), atoi(z[len(z)-2:]) // ±hh:mm or ±hhmm
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

// isoParts are the parts of an ISO 8601 text splitISO found, each a slice
// of the text ("" when absent).
type isoParts struct {
	year, month, day, hour, minute, second, fraction, zone string
}

// splitISO splits s by the grammar
//
//	^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?)?)?)?$
//
// (\d an ASCII digit); false when s does not match it.
func splitISO(s string) (p isoParts, ok bool) {
	r := isoReader{s: s}
	if r.peek('+') || r.peek('-') {
		p.year = r.sign(6)
	} else {
		p.year = r.digits(4)
	}
	if p.year == "" {
		return p, false
	}
	if !r.skip('-') {
		return p, r.done()
	}
	if p.month = r.digits(2); p.month == "" {
		return p, false
	}
	if !r.skip('-') {
		return p, r.done()
	}
	if p.day = r.digits(2); p.day == "" {
		return p, false
	}
	if !r.skip('T') && !r.skip('t') && !r.skip(' ') {
		return p, r.done()
	}
	if p.hour = r.digits(2); p.hour == "" || !r.skip(':') {
		return p, false
	}
	if p.minute = r.digits(2); p.minute == "" {
		return p, false
	}
	if r.skip(':') {
		if p.second = r.digits(2); p.second == "" {
			return p, false
		}
		if r.skip('.') {
			if p.fraction = r.run(); p.fraction == "" {
				return p, false
			}
		}
	}
	switch {
	case r.peek('Z') || r.peek('z'):
		p.zone = r.s[r.i : r.i+1]
		r.i++
	case r.peek('+') || r.peek('-'):
		start := r.i
		r.i++
		if r.digits(2) == "" {
			return p, false
		}
		r.skip(':')
		if r.digits(2) == "" {
			return p, false
		}
		p.zone = r.s[start:r.i]
	}
	return p, r.done()
}

// isoReader reads a text from i on for splitISO.
type isoReader struct {
	s string
	i int
}

// peek reports whether the next byte is c.
func (r *isoReader) peek(c byte) bool { return r.i < len(r.s) && r.s[r.i] == c }

// skip passes the next byte when it is c and reports whether it did.
func (r *isoReader) skip(c byte) bool {
	if r.peek(c) {
		r.i++
		return true
	}
	return false
}

// digits passes exactly n ASCII digits and returns them; "" (and nothing
// passed) when fewer follow.
func (r *isoReader) digits(n int) string {
	if digitRun(r.s, r.i) < n {
		return ""
	}
	r.i += n
	return r.s[r.i-n : r.i]
}

// sign passes a sign and n digits and returns them; "" when they do not
// follow.
func (r *isoReader) sign(n int) string {
	start := r.i
	r.i++
	if r.digits(n) == "" {
		r.i = start
		return ""
	}
	return r.s[start:r.i]
}

// run passes the ASCII digits that follow and returns them.
func (r *isoReader) run() string {
	start := r.i
	r.i += digitRun(r.s, r.i) // columns_javascript.go
	return r.s[start:r.i]
}

// done reports whether the whole text was read.
func (r *isoReader) done() bool { return r.i == len(r.s) }

// atoi reads ASCII digits splitISO checked (at most 9 of them here: no
// overflow).
func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// numOr reads the digits s, def when s is empty.
func numOr(s string, def int) int {
	if s == "" {
		return def
	}
	return atoi(s)
}

// DaysIn returns how many days month (1–12) of year has.
func DaysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

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
