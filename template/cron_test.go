package template

import (
	"strings"
	"testing"
)

func TestCheckCron(t *testing.T) {
	valid := []string{
		"* * * * *",
		"0 * * * *",
		"*/15 * * * *",
		"0 6-18/2 * * mon-fri",
		"0 0 1,15 * *",
		"0 0 ? * SUN",
		"0 0 * jan-dec ?",
		"59 23 31 12 7",
		"0 0 0 * * *",
		"*/30 * * * * *",
		"5/10 * * * *",
		"  0   12  *  *  *  ",
		"0 0 1 */3 *",
	}
	for _, expr := range valid {
		if err := CheckCron(expr); err != nil {
			t.Errorf("CheckCron(%q) = %v; want nil", expr, err)
		}
	}
	invalid := map[string]string{
		"":                  `cron schedule "" has 0 fields; allowed: 5 (minute hour day-of-month month day-of-week) or 6 (a leading second)`,
		"* * * *":           `has 4 fields`,
		"* * * * * * *":     `has 7 fields`,
		"@hourly":           `has 1 fields`,
		"60 * * * *":        `cron minute field "60": 60 is out of range; allowed: 0 to 59`,
		"* 24 * * *":        `cron hour field "24": 24 is out of range; allowed: 0 to 23`,
		"* * 0 * *":         `cron day of month field "0": 0 is out of range; allowed: 1 to 31`,
		"* * 32 * *":        `cron day of month field "32"`,
		"* * * 13 *":        `cron month field "13": 13 is out of range; allowed: 1 to 12`,
		"* * * * 8":         `cron day of week field "8": 8 is out of range; allowed: 0 to 7`,
		"60 * * * * *":      `cron second field "60"`,
		"* * * foo *":       `cron month field "foo": "foo" is not a number from 1 to 12 or a name (jan, feb, mar, apr, may, jun, jul, aug, sep, oct, nov, dec)`,
		"* * * * fri-mon":   `range fri-mon is backwards; write the smaller value first`,
		"*/0 * * * *":       `step "0" must be a whole number from 1 to 60`,
		"*/61 * * * *":      `step "61" must be a whole number from 1 to 60`,
		"*/x * * * *":       `step "x"`,
		"1,,2 * * * *":      `empty list item`,
		"? * * * *":         `"?" is only allowed in the day-of-month and day-of-week fields`,
		"-1 * * * *":        `"" is not a number from 0 to 59`,
		"+1 * * * *":        `"+1" is not a number from 0 to 59`,
		"L * * * *":         `"L" is not a number`,
		"1-2-3 * * * *":     `"2-3" is not a number`,
		"* * * * 1#2":       `"1#2" is not a number`,
		"0 0 12 ? * MON/0":  `step "0"`,
		"0 0 12 * * mon-x":  `"x" is not a number from 0 to 7 or a name`,
		"0 0 12 * * 5-3/2":  `range 5-3 is backwards`,
		"0 0 12 * * */1/2":  `step "1/2"`,
		"0 0 12 * * 1-":     `"" is not a number`,
		"0 0 12 * * \u0660": `is not a number`,
	}
	for expr, msg := range invalid {
		err := CheckCron(expr)
		if err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("CheckCron(%q) = %v; want an error containing %q", expr, err, msg)
		}
	}
}
