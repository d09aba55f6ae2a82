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

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

var (
	dmyDateTime = regexp.MustCompile(`^([0-9]{1,2})\.([0-9]{1,2})\.([0-9]{4})(?:[ T]([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))?)?$`)
)

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
	if month < 1 || month > 12 || day < 1 || day > store.DaysIn(year, month) || hour > 23 || minute > 59 || sec > 59 {
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
		if store.IntText.MatchString(s) {
			n, err := strconv.ParseInt(s, 10, 64)
			return n, err == nil
		}
		if ms, ok := store.ParseJSDate(s); ok {
			return ms, true
		}
		return parseDMY(s)
	case time.Time:
		return x.UnixMilli(), true
	}
	if store.IsNumber(v) {
		f := store.NumberOf(v)
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
		return store.ParseJSDate(x)
	}
	f := store.NumberOf(v)
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
	if store.IsNumber(v) {
		f := store.NumberOf(v)
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
			return Bound{}, dataRefusal(errInvalidTimeRange, "timeRange %s %s is not a date", name, store.JSONText(v))
		}
		return Bound{Set: true, Ms: ms / 1000 * 1000}, nil
	}
	if start, err = parse(s, "start"); err != nil {
		return
	}
	end, err = parse(e, "end")
	return
}
