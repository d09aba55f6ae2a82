package template

import (
	"strings"
	"testing"
	"time"
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

func TestCronNext(t *testing.T) {
	at := func(s string) time.Time {
		t.Helper()
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	cases := []struct {
		expr, after string
		want        []string // the next fire times, in order; none: never
	}{
		{"* * * * *", "2026-01-01T00:00:00Z", []string{"2026-01-01T00:01:00Z", "2026-01-01T00:02:00Z"}},
		{"* * * * *", "2026-01-01T00:00:30.5Z", []string{"2026-01-01T00:01:00Z"}},
		{"0 * * * *", "2026-01-01T00:59:59Z", []string{"2026-01-01T01:00:00Z", "2026-01-01T02:00:00Z"}},
		{"*/15 * * * *", "2026-01-01T00:07:00Z", []string{"2026-01-01T00:15:00Z", "2026-01-01T00:30:00Z", "2026-01-01T00:45:00Z", "2026-01-01T01:00:00Z"}},
		{"5/20 * * * *", "2026-01-01T00:00:00Z", []string{"2026-01-01T00:05:00Z", "2026-01-01T00:25:00Z", "2026-01-01T00:45:00Z", "2026-01-01T01:05:00Z"}},
		{"0 6-18/6 * * *", "2026-01-01T07:00:00Z", []string{"2026-01-01T12:00:00Z", "2026-01-01T18:00:00Z", "2026-01-02T06:00:00Z"}},
		{"30 2 * * mon-fri", "2026-01-02T03:00:00Z", []string{"2026-01-05T02:30:00Z", "2026-01-06T02:30:00Z"}}, // Jan 2 is a Friday
		{"0 0 * * 7", "2026-01-01T00:00:00Z", []string{"2026-01-04T00:00:00Z", "2026-01-11T00:00:00Z"}},        // Sundays
		{"0 0 ? * SUN", "2026-01-01T00:00:00Z", []string{"2026-01-04T00:00:00Z"}},
		{"0 0 1 * mon", "2026-01-01T00:00:00Z", []string{"2026-01-05T00:00:00Z", "2026-01-12T00:00:00Z", "2026-01-19T00:00:00Z", "2026-01-26T00:00:00Z", "2026-02-01T00:00:00Z"}},
		{"0 0 */10 * mon", "2026-01-01T00:00:00Z", []string{"2026-05-11T00:00:00Z"}}, // a star day field: both must match (days 1, 11, 21, 31 that are Mondays)
		{"0 0 31 * *", "2026-01-31T00:00:00Z", []string{"2026-03-31T00:00:00Z", "2026-05-31T00:00:00Z"}},
		{"0 0 29 feb *", "2026-01-01T00:00:00Z", []string{"2028-02-29T00:00:00Z"}},
		{"0 0 30 2 *", "2026-01-01T00:00:00Z", nil},
		{"0 0 1 jan,jul *", "2026-03-01T00:00:00Z", []string{"2026-07-01T00:00:00Z", "2027-01-01T00:00:00Z"}},
		{"*/20 * * * * *", "2026-01-01T00:00:00Z", []string{"2026-01-01T00:00:20Z", "2026-01-01T00:00:40Z", "2026-01-01T00:01:00Z"}},
		{"59 59 23 31 12 *", "2026-06-01T00:00:00Z", []string{"2026-12-31T23:59:59Z", "2027-12-31T23:59:59Z"}},
		{"0 12 * * *", "2026-01-01T13:00:00+02:00", []string{"2026-01-01T12:00:00Z"}}, // UTC fire times: 13:00+02:00 is 11:00Z
	}
	for _, tc := range cases {
		c, err := ParseCron(tc.expr)
		if err != nil {
			t.Fatalf("ParseCron(%q): %v", tc.expr, err)
		}
		after := at(tc.after)
		var got []string
		for range max(len(tc.want), 1) {
			next, ok := c.Next(after)
			if !ok {
				break
			}
			got = append(got, next.Format(time.RFC3339))
			after = next
		}
		if strings.Join(got, " ") != strings.Join(tc.want, " ") {
			t.Errorf("%q after %s: %v, want %v", tc.expr, tc.after, got, tc.want)
		}
	}
	if _, err := ParseCron("61 * * * *"); err == nil {
		t.Error("ParseCron accepted a bad schedule")
	}
	if c, _ := ParseCron("  0   12  *  *  *  "); c.String() != "0 12 * * *" {
		t.Errorf("String() = %q", c.String())
	}
}
