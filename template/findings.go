package template

import (
	"fmt"
	"strconv"
	"strings"
)

// Severity says whether a [Finding] blocks the template.
type Severity int

const (
	// SeverityWarning marks something the platform accepts but that is probably a
	// mistake, such as an unknown key (the real platform ignores it).
	SeverityWarning Severity = iota
	// SeverityError marks a rule violation: the platform refuses the template.
	SeverityError
)

// String returns "warning" or "error".
func (s Severity) String() string {
	switch s {
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	}
	return "Severity(" + strconv.Itoa(int(s)) + ")"
}

// Finding is one problem found in a template file.
type Finding struct {
	// Severity is SeverityWarning or SeverityError.
	Severity Severity
	// File names the template file: "data-template.yml" or "ai-template.yml"
	// from ParseData and ParseAgents, the path that was read from ValidateDir.
	File string
	// Path locates the offending value in the document, for example
	// "data.tables[2].columns[0].dataType" or "assistant.tools.read.topic".
	// It is empty for findings about the whole document.
	Path string
	// Line and Column are 1-based positions in the file; 0 when unknown
	// (some YAML syntax errors only carry a line).
	Line, Column int
	// Message says what is wrong and what is allowed.
	Message string
}

// String formats the finding as "file:line:col: path: message", the form
// compilers use, for example
//
//	data-template.yml:12:9: data.tables[2].columns[0].dataType: unknown type "float"; allowed: numeric, bigint, timestamp, string, boolean, json
//
// Warnings carry "warning: " before the path.
func (f Finding) String() string {
	var b strings.Builder
	if f.File != "" {
		b.WriteString(f.File)
		b.WriteByte(':')
	}
	if f.Line > 0 {
		b.WriteString(strconv.Itoa(f.Line))
		b.WriteByte(':')
		if f.Column > 0 {
			b.WriteString(strconv.Itoa(f.Column))
			b.WriteByte(':')
		}
	}
	if b.Len() > 0 {
		b.WriteByte(' ')
	}
	if f.Severity != SeverityError {
		b.WriteString(f.Severity.String())
		b.WriteString(": ")
	}
	if f.Path != "" {
		b.WriteString(f.Path)
		b.WriteString(": ")
	}
	b.WriteString(f.Message)
	return b.String()
}

// Error is returned by ParseData and ParseAgents when at least one finding
// has SeverityError. Match it with errors.As.
type Error struct {
	// File is the template file the findings belong to.
	File string
	// Findings holds every finding of the file, warnings included, in
	// document order.
	Findings []Finding
}

// Error lists the error findings of the file, one per line after a summary.
func (e *Error) Error() string {
	errs := 0
	for _, f := range e.Findings {
		if f.Severity == SeverityError {
			errs++
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "template: %s is invalid (%d %s)", e.File, errs, plural(errs, "error", "errors"))
	for _, f := range e.Findings {
		if f.Severity == SeverityError {
			b.WriteString("\n\t")
			b.WriteString(f.String())
		}
	}
	return b.String()
}

// hasErrors reports whether any finding has SeverityError.
func hasErrors(fs []Finding) bool {
	for _, f := range fs {
		if f.Severity == SeverityError {
			return true
		}
	}
	return false
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
