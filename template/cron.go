// This file holds the cron schedules of transforms (data.transforms[].schedule):
// their validation (CheckCron) and their fire times (ParseCron, Cron.Next).

package template

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// cronField describes one field of a cron expression.
type cronField struct {
	name     string
	min, max int
	names    []string // names[i] stands for min+i (months, weekdays)
	question bool     // "?" allowed (day-of-month, day-of-week)
}

var (
	cronSecond = cronField{name: "second", min: 0, max: 59}
	cronFive   = []cronField{
		{name: "minute", min: 0, max: 59},
		{name: "hour", min: 0, max: 23},
		{name: "day of month", min: 1, max: 31, question: true},
		{name: "month", min: 1, max: 12, names: strings.Fields("jan feb mar apr may jun jul aug sep oct nov dec")},
		{name: "day of week", min: 0, max: 7, names: strings.Fields("sun mon tue wed thu fri sat"), question: true},
	}
)

// CheckCron validates a cron schedule of 5 fields (minute hour day-of-month
// month day-of-week) or 6 fields (a leading second). Each field is "*", a
// value, a range "a-b", a step "*/n", "a/n" or "a-b/n", or a comma-separated
// list of those; months and weekdays may be written as jan…dec and sun…sat,
// day of week 7 is Sunday, and "?" stands for "any" in the day fields.
// Macros such as "@daily" are not accepted.
func CheckCron(expr string) error {
	fields := strings.Fields(expr)
	var spec []cronField
	switch len(fields) {
	case 5:
		spec = cronFive
	case 6:
		spec = append([]cronField{cronSecond}, cronFive...)
	default:
		return fmt.Errorf("cron schedule %q has %d fields; allowed: 5 (minute hour day-of-month month day-of-week) or 6 (a leading second)", expr, len(fields))
	}
	for i, f := range fields {
		if err := spec[i].check(f); err != nil {
			return err
		}
	}
	return nil
}

// check validates one field text against f.
func (f cronField) check(text string) error {
	for item := range strings.SplitSeq(text, ",") {
		if err := f.checkItem(item); err != nil {
			return fmt.Errorf("cron %s field %q: %v", f.name, text, err)
		}
	}
	return nil
}

func (f cronField) checkItem(item string) error {
	if item == "" {
		return fmt.Errorf("empty list item")
	}
	if item == "?" {
		if !f.question {
			return fmt.Errorf(`"?" is only allowed in the day-of-month and day-of-week fields`)
		}
		return nil
	}
	base, step, hasStep := strings.Cut(item, "/")
	if base != "*" {
		from, to, isRange := strings.Cut(base, "-")
		lo, err := f.value(from)
		if err != nil {
			return err
		}
		if isRange {
			hi, err := f.value(to)
			if err != nil {
				return err
			}
			if lo > hi {
				return fmt.Errorf("range %s is backwards; write the smaller value first", base)
			}
		}
	}
	if hasStep {
		n, err := strconv.Atoi(step)
		if err != nil || !allDigits(step) || n < 1 || n > f.max-f.min+1 {
			return fmt.Errorf("step %q must be a whole number from 1 to %d", step, f.max-f.min+1)
		}
	}
	return nil
}

// value parses a number or a name of f and checks its range.
func (f cronField) value(s string) (int, error) {
	for i, n := range f.names {
		if strings.EqualFold(s, n) {
			return f.min + i, nil
		}
	}
	v, err := strconv.Atoi(s)
	if err != nil || !allDigits(s) {
		if len(f.names) > 0 {
			return 0, fmt.Errorf("%q is not a number from %d to %d or a name (%s)", s, f.min, f.max, strings.Join(f.names, ", "))
		}
		return 0, fmt.Errorf("%q is not a number from %d to %d", s, f.min, f.max)
	}
	if v < f.min || v > f.max {
		return 0, fmt.Errorf("%d is out of range; allowed: %d to %d", v, f.min, f.max)
	}
	return v, nil
}

// allDigits reports whether s is a non-empty run of ASCII digits.
func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// Cron is a parsed cron schedule (see CheckCron for the syntax). Its fire
// times are in UTC.
type Cron struct {
	expr string
	// fields: second, minute, hour, day of month, month, day of week; bit
	// v is set when value v matches (day of week 7 is folded into 0).
	fields [6]uint64
	// domStar and dowStar: the day field starts with "*" or is "?".
	domStar, dowStar bool
}

// ParseCron parses a cron schedule of 5 or 6 fields, as CheckCron checks
// it. A 5-field schedule fires at second 0 of its minutes.
func ParseCron(expr string) (*Cron, error) {
	if err := CheckCron(expr); err != nil {
		return nil, err
	}
	fields := strings.Fields(expr)
	c := &Cron{expr: strings.Join(fields, " ")}
	if len(fields) == 5 {
		fields = append([]string{"0"}, fields...)
	}
	spec := append([]cronField{cronSecond}, cronFive...)
	for i, f := range fields {
		c.fields[i] = spec[i].bits(f)
	}
	if c.fields[5]&(1<<7) != 0 { // 7 is Sunday, as 0
		c.fields[5] |= 1
	}
	c.domStar = isStar(fields[3])
	c.dowStar = isStar(fields[5])
	return c, nil
}

// isStar reports a day field that starts with "*" or is "?".
func isStar(field string) bool { return strings.HasPrefix(field, "*") || field == "?" }

// String returns the schedule as parsed, its fields separated by one space.
func (c *Cron) String() string { return c.expr }

// bits returns the values a checked field text matches, as a bit set.
func (f cronField) bits(text string) uint64 {
	var set uint64
	for item := range strings.SplitSeq(text, ",") {
		if item == "?" {
			item = "*"
		}
		base, stepText, hasStep := strings.Cut(item, "/")
		lo, hi, step := f.min, f.max, 1
		if hasStep {
			step, _ = strconv.Atoi(stepText)
		}
		if base != "*" {
			from, to, isRange := strings.Cut(base, "-")
			lo, _ = f.value(from)
			switch {
			case isRange:
				hi, _ = f.value(to)
			case !hasStep:
				hi = lo // a single value; "a/n" runs from a to the maximum
			}
		}
		for v := lo; v <= hi; v += step {
			set |= 1 << v
		}
	}
	return set
}

// cronHorizon bounds the search for the next fire time: a schedule that
// matches no day within it (February 30) never fires.
const cronHorizon = 5 * 366 * 24 * time.Hour

// Next returns the first fire time strictly after t, in UTC; ok is false
// when the schedule never fires (a day that does not exist, such as
// February 30). As in Vixie cron, when neither day field starts with "*"
// (or is "?"), a day matches either of them ("0 0 1 * mon": the first of
// the month and every Monday); otherwise it must match both.
func (c *Cron) Next(t time.Time) (next time.Time, ok bool) {
	t = t.UTC().Truncate(time.Second).Add(time.Second)
	limit := t.Add(cronHorizon)
	for t.Before(limit) {
		y, mo, d := t.Date()
		h, mi, s := t.Clock()
		switch {
		case !has(c.fields[4], int(mo)):
			t = time.Date(y, mo+1, 1, 0, 0, 0, 0, time.UTC)
		case !c.dayMatches(t):
			t = time.Date(y, mo, d+1, 0, 0, 0, 0, time.UTC)
		case !has(c.fields[2], h):
			t = time.Date(y, mo, d, h+1, 0, 0, 0, time.UTC)
		case !has(c.fields[1], mi):
			t = time.Date(y, mo, d, h, mi+1, 0, 0, time.UTC)
		case !has(c.fields[0], s):
			t = t.Add(time.Second)
		default:
			return t, true
		}
	}
	return time.Time{}, false
}

// dayMatches applies the day-of-month and day-of-week fields to t's day.
func (c *Cron) dayMatches(t time.Time) bool {
	dom := has(c.fields[3], t.Day())
	dow := has(c.fields[5], int(t.Weekday()))
	if c.domStar || c.dowStar {
		return dom && dow
	}
	return dom || dow
}

func has(set uint64, v int) bool { return set&(1<<v) != 0 }
