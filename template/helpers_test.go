package template

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// want is the expected form of a finding: Msg is a substring of the
// message (the part that says what is wrong and what is allowed).
type want struct {
	Sev       Severity
	Line, Col int
	Path      string
	Msg       string
}

// E and W build expected error and warning findings.
func E(line, col int, path, msg string) want { return want{SeverityError, line, col, path, msg} }
func W(line, col int, path, msg string) want { return want{SeverityWarning, line, col, path, msg} }

// project turns findings into wants; a message that contains the expected
// substring is replaced by it, so that cmp.Diff shows only real differences.
func project(got []Finding, exp []want) []want {
	var out []want
	for i, f := range got {
		msg := f.Message
		if i < len(exp) && exp[i].Msg != "" && strings.Contains(msg, exp[i].Msg) {
			msg = exp[i].Msg
		}
		out = append(out, want{f.Severity, f.Line, f.Column, f.Path, msg})
	}
	return out
}

// dedent strips the leading newline of a raw string and the tabs that
// indent it in the Go source, so that YAML can be written in place.
func dedent(s string) string {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		switch {
		case strings.TrimSpace(l) == "":
			lines[i] = ""
		case indent > 0:
			lines[i] = l[indent:]
		}
	}
	return strings.Join(lines, "\n")
}

// tcase is one table-test case: a template and the findings it yields
// (nil: valid without findings).
type tcase struct {
	name string
	src  string
	want []want
}

func hasErr(ws []want) bool {
	for _, w := range ws {
		if w.Sev == SeverityError {
			return true
		}
	}
	return false
}

// checkResult asserts the findings, the error and the template of a parse.
func checkResult[T any](t *testing.T, tc tcase, tpl *T, got []Finding, err error) {
	t.Helper()
	if d := cmp.Diff(tc.want, project(got, tc.want)); d != "" {
		t.Errorf("findings mismatch (-want +got):\n%s\nsource:\n%s", d, dedent(tc.src))
	}
	if hasErr(tc.want) {
		var terr *Error
		if !errors.As(err, &terr) || tpl != nil {
			t.Errorf("got template %v, err %v; want nil template and *Error", tpl != nil, err)
		} else if d := cmp.Diff(got, terr.Findings); d != "" {
			t.Errorf("Error.Findings differ from the returned findings:\n%s", d)
		}
	} else if err != nil || tpl == nil {
		t.Errorf("got template %v, err %v; want a template and no error", tpl != nil, err)
	}
	for _, f := range got {
		if f.File == "" || f.Message == "" {
			t.Errorf("finding without file or message: %#v", f)
		}
	}
}

func runData(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl, got, err := ParseData([]byte(dedent(tc.src)))
			checkResult(t, tc, tpl, got, err)
		})
	}
}

func runAgents(t *testing.T, cases []tcase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tpl, got, err := ParseAgents([]byte(dedent(tc.src)))
			checkResult(t, tc, tpl, got, err)
		})
	}
}

// mustData parses a template that must be valid without findings.
func mustData(t *testing.T, src string) *DataTemplate {
	t.Helper()
	tpl, fs, err := ParseData([]byte(dedent(src)))
	if err != nil || len(fs) > 0 {
		t.Fatalf("ParseData: %v %v", err, fs)
	}
	return tpl
}

// mustAgents parses a template that must be valid without errors.
func mustAgents(t *testing.T, src string) (*AgentTemplate, []Finding) {
	t.Helper()
	tpl, fs, err := ParseAgents([]byte(dedent(src)))
	if err != nil {
		t.Fatalf("ParseAgents: %v", err)
	}
	return tpl, fs
}
