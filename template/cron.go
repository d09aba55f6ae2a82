package template

import (
	"fmt"
	"strconv"
	"strings"
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
