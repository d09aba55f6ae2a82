package template

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestFindingString(t *testing.T) {
	for _, tc := range []struct {
		f    Finding
		want string
	}{
		{Finding{Severity: SeverityError, File: "data-template.yml", Path: "data.tables[2].columns[0].dataType", Line: 12, Column: 9,
			Message: `unknown type "float"; allowed: numeric, bigint, timestamp, string, boolean, json`},
			`data-template.yml:12:9: data.tables[2].columns[0].dataType: unknown type "float"; allowed: numeric, bigint, timestamp, string, boolean, json`},
		{Finding{Severity: SeverityWarning, File: "ai-template.yml", Path: "a.x", Line: 3, Column: 1, Message: "m"},
			"ai-template.yml:3:1: warning: a.x: m"},
		{Finding{Severity: SeverityError, File: "f.yml", Line: 4, Message: "invalid YAML: x"}, "f.yml:4: invalid YAML: x"},
		{Finding{Severity: SeverityError, File: "f.yml", Message: "m"}, "f.yml: m"},
		{Finding{Severity: SeverityError, Path: "p", Message: "m"}, "p: m"},
		{Finding{Severity: SeverityError, Line: 1, Column: 2, Message: "m"}, "1:2: m"},
	} {
		if got := tc.f.String(); got != tc.want {
			t.Errorf("String() = %q; want %q", got, tc.want)
		}
	}
}

func TestSeverityString(t *testing.T) {
	got := []string{SeverityWarning.String(), SeverityError.String(), Severity(7).String()}
	if d := cmp.Diff([]string{"warning", "error", "Severity(7)"}, got); d != "" {
		t.Error(d)
	}
}

func TestErrorMessage(t *testing.T) {
	_, fs, err := ParseData([]byte("data:\n  tables:\n    - tablename: A\n      extra: 1\n      columns: [{id: tsp, dataType: float}]\n"))
	var terr *Error
	if !errors.As(err, &terr) {
		t.Fatalf("err = %v; want *Error", err)
	}
	if terr.File != DataTemplateFile || len(terr.Findings) != 3 || len(fs) != 3 {
		t.Fatalf("Error = %+v", terr)
	}
	want := strings.Join([]string{
		"template: data-template.yml is invalid (2 errors)",
		`	data-template.yml:3:18: data.tables[0].tablename: invalid name "A"; allowed: a lower-case letter, then lower-case letters, digits and _ (^[a-z][a-z0-9_]*$)`,
		`	data-template.yml:5:37: data.tables[0].columns[0].dataType: unknown type "float"; allowed: numeric, bigint, timestamp, string, boolean, json`,
	}, "\n")
	if d := cmp.Diff(want, err.Error()); d != "" {
		t.Errorf("Error() mismatch (-want +got):\n%s", d)
	}
	one := &Error{File: "ai-template.yml", Findings: []Finding{{Severity: SeverityError, File: "ai-template.yml", Message: "m"}}}
	if got := one.Error(); got != "template: ai-template.yml is invalid (1 error)\n\tai-template.yml: m" {
		t.Errorf("Error() = %q", got)
	}
}

func TestWarningsAloneDoNotFail(t *testing.T) {
	tpl, fs, err := ParseData([]byte(dedent(minimal) + "version: 2\n"))
	if err != nil || tpl == nil || len(fs) != 1 || fs[0].Severity != SeverityWarning {
		t.Errorf("ParseData = %v, %v, %v; want a template and one warning", tpl != nil, fs, err)
	}
}

func TestFindingsSorted(t *testing.T) {
	_, fs, _ := ParseData([]byte("files: {quotaBytes: 1}\ndata:\n  tables: [{tablename: Bad, columns: [{id: tsp, dataType: timestamp}]}]\nzzz: 1\n"))
	var lines []int
	for _, f := range fs {
		lines = append(lines, f.Line)
	}
	if d := cmp.Diff([]int{1, 3, 4}, lines); d != "" {
		t.Errorf("findings not in document order: %s\n%v", d, fs)
	}
}
