// This file holds the errors of package agent: the sentinels, BindError
// (Go tools that disagree with the template, reported at Serve), OpError
// (the operation wrapper) and InvalidArgument, the refusal a tool returns
// to the model.

package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/template"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrMismatch reports Go tools that disagree with the agent template;
	// Serve returns it as a *BindError listing every mismatch.
	ErrMismatch = errors.New("the Go tools do not match the agent template")
	// ErrNoTemplate reports that no agent template was found (Load,
	// LoadDefault). It matches fs.ErrNotExist too.
	ErrNoTemplate = fmt.Errorf("no %s found: %w", template.AgentTemplateFile, fs.ErrNotExist)
)

// BindError is the error of Serve when the Go tools and the agent template
// disagree. It lists every mismatch at once, each a template.Finding with
// the file, line and column of the part of the template concerned (the
// tool, or the parameter and keyword) and a message saying what to change.
// It matches ErrMismatch.
type BindError struct {
	// File is the template file (Template.File).
	File string
	// Mismatches holds every mismatch, in file order; those without a
	// place in the file (a Go tool the template lacks) come last.
	Mismatches []template.Finding
}

// Error lists the mismatches, one per line after a summary, in the form
// compilers use: file:line:col: path: message.
func (e *BindError) Error() string {
	var b strings.Builder
	n := len(e.Mismatches)
	fmt.Fprintf(&b, "agent: Serve: %d %s between %s and the Go tools", n, plural(n, "mismatch", "mismatches"), e.File)
	for _, m := range e.Mismatches {
		b.WriteString("\n\t")
		b.WriteString(m.String())
	}
	return b.String()
}

// Unwrap returns ErrMismatch.
func (e *BindError) Unwrap() error { return ErrMismatch }

// OpError names the operation and the tool topic (or file) an error
// concerns, and wraps the reason.
type OpError struct {
	Op    string // "Serve", "Load", "Unregister"
	Topic string // the tool's topic, or the file read; may be ""
	Err   error
}

// Error reads like: agent: Serve "read_temperature": <reason>.
func (e *OpError) Error() string {
	if e.Topic == "" {
		return "agent: " + e.Op + ": " + e.Err.Error()
	}
	return fmt.Sprintf("agent: %s %q: %s", e.Op, e.Topic, e.Err.Error())
}

// Unwrap returns the reason.
func (e *OpError) Unwrap() error { return e.Err }

// InvalidArgument returns the refusal a tool sends when its arguments are
// well-formed but unusable (an unknown machine, a date in the past): the
// caller gets wamp.error.invalid_argument with the text, which the model
// reads verbatim, so say which parameter is wrong and what would do.
func InvalidArgument(format string, a ...any) error {
	return &client.WampError{URI: wire.ErrInvalidArgument, Args: []any{fmt.Sprintf(format, a...)}}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
