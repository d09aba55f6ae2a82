// This file holds TimeRange, the time bounds of history queries, and the
// check of ISO dates.

package client

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
)

// TimeRange bounds a query to [Start, End). Each bound is nil (open), a
// time.Time, an ISO 8601 string as JavaScript's Date reads it, or a number
// of epoch milliseconds. Both bounds must be of one kind: strings (times
// count as strings) or numbers.
type TimeRange struct {
	Start, End any
}

// Between is the range [start, end).
func Between(start, end time.Time) *TimeRange { return &TimeRange{Start: start, End: end} }

// Since is the range from start on.
func Since(start time.Time) *TimeRange { return &TimeRange{Start: start} }

// Until is the range before end.
func Until(end time.Time) *TimeRange { return &TimeRange{End: end} }

// wire returns [start, end] for the payload.
func (r *TimeRange) wire(field string) ([]any, error) {
	start, err := boundValue(r.Start, field+".start")
	if err != nil {
		return nil, err
	}
	end, err := boundValue(r.End, field+".end")
	if err != nil {
		return nil, err
	}
	_, sNum := start.(float64)
	_, eNum := end.(float64)
	_, sNumI := start.(int64)
	_, eNumI := end.(int64)
	sIsNum, eIsNum := sNum || sNumI, eNum || eNumI
	if start != nil && end != nil && sIsNum != eIsNum {
		return nil, fmt.Errorf("%s: the bounds mix a string and a number; use one kind for both", field)
	}
	return []any{start, end}, nil
}

// boundValue converts one bound.
func boundValue(v any, field string) (any, error) {
	switch x := v.(type) {
	case nil:
		return nil, nil
	case time.Time:
		return formatBound(x), nil
	case *time.Time:
		if x == nil {
			return nil, nil
		}
		return formatBound(*x), nil
	case string:
		if err := checkISODate(x); err != nil {
			return nil, fmt.Errorf("%s: %q is not a date JavaScript reads reliably: %v", field, x, err)
		}
		return x, nil
	case int:
		return int64(x), nil
	case int64:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s: %v is not a time (it would travel as an open bound)", field, x)
		}
		return x, nil
	}
	return nil, fmt.Errorf("%s: want a time.Time, an ISO 8601 string or epoch milliseconds, got %T", field, v)
}

// formatBound writes a time as JavaScript's toISOString would read it back:
// RFC 3339 in UTC, with a six-digit signed year outside 0000–9999.
func formatBound(t time.Time) string {
	t = t.UTC()
	if y := t.Year(); y >= 0 && y <= 9999 {
		return t.Format(time.RFC3339Nano)
	}
	rest := t.Format("-01-02T15:04:05.999999999Z07:00")
	y := t.Year()
	sign := "+"
	if y < 0 {
		sign, y = "-", -y
	}
	return fmt.Sprintf("%s%06d%s", sign, y, rest)
}

var isoDate = regexp.MustCompile(`^([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2})(?:([Tt ])(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|z|[+-]\d{2}:?\d{2})?)?)?)?$`)

// checkISODate accepts the forms of docs/wire.md §9: YYYY, YYYY-MM,
// YYYY-MM-DD, or a date with T, t or space and hh:mm[:ss[.fraction]] and an
// optional Z, ±hh:mm or ±hhmm. 24:00 only as the exact end of a day; the
// day must exist; no space separator for years 0–99.
func checkISODate(s string) error {
	m := isoDate.FindStringSubmatch(s)
	if m == nil {
		return fmt.Errorf("use YYYY-MM-DD or YYYY-MM-DDThh:mm[:ss[.sss]][Z|±hh:mm]")
	}
	year, _ := strconv.Atoi(m[1])
	if m[1] == "-000000" {
		return fmt.Errorf("year -000000 does not exist")
	}
	month, day := 1, 1
	if m[2] != "" {
		month, _ = strconv.Atoi(m[2])
		if month < 1 || month > 12 {
			return fmt.Errorf("month %d does not exist", month)
		}
	}
	if m[3] != "" {
		day, _ = strconv.Atoi(m[3])
		if day < 1 || day > daysIn(year, month) {
			return fmt.Errorf("day %d does not exist in %04d-%02d", day, year, month)
		}
	}
	if m[4] == "" {
		return nil
	}
	if m[4] == " " && year >= 0 && year <= 99 {
		return fmt.Errorf("a space before the time is ambiguous for year %d; use T", year)
	}
	hour, _ := strconv.Atoi(m[5])
	minute, _ := strconv.Atoi(m[6])
	second := 0
	if m[7] != "" {
		second, _ = strconv.Atoi(m[7])
	}
	fracZero := true
	for _, r := range m[8] {
		if r != '0' {
			fracZero = false
		}
	}
	switch {
	case hour == 24 && (minute != 0 || second != 0 || !fracZero):
		return fmt.Errorf("24:00 is only valid as the exact end of a day")
	case hour > 24:
		return fmt.Errorf("hour %d does not exist", hour)
	case minute > 59:
		return fmt.Errorf("minute %d does not exist", minute)
	case second > 59:
		return fmt.Errorf("second %d does not exist", second)
	}
	if z := m[9]; len(z) > 1 {
		digits := z[1:]
		if len(digits) == 5 {
			digits = digits[:2] + digits[3:]
		}
		oh, _ := strconv.Atoi(digits[:2])
		om, _ := strconv.Atoi(digits[2:])
		if oh > 23 || om > 59 {
			return fmt.Errorf("offset %s does not exist", z)
		}
	}
	return nil
}

func daysIn(year, month int) int {
	return time.Date(year, time.Month(month)+1, 0, 0, 0, 0, 0, time.UTC).Day()
}
