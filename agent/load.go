// This file holds Template, an app's agent template with the file it came
// from, and its loading: from bytes (Parse), from an app folder (Load) or
// from the default location inside the app's container (LoadDefault).

package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/flockgo/ironflock/template"
)

// Template is an app's agent template (.ironflock/ai-template.yml), parsed
// and validated by package template, with the file it came from. The
// embedded AgentTemplate gives its agents and tools.
type Template struct {
	*template.AgentTemplate
	// File names the file read: its path for Load and LoadDefault,
	// "ai-template.yml" for Parse. Mismatches found by Serve name it.
	File string
	// Warnings are the findings of SeverityWarning (unknown keys, for
	// one): the platform accepts the template anyway.
	Warnings []template.Finding
}

// DefaultDirs are the app folders LoadDefault looks in, in order: the
// working directory, then /app, where an app's Dockerfile usually copies
// the app (the platform does not document a fixed place).
var DefaultDirs = []string{".", "/app"}

// Parse parses and validates an agent template. An invalid template is a
// *template.Error listing every finding with its line and column.
func Parse(src []byte) (*Template, error) {
	return parse("Parse", src, template.AgentTemplateFile)
}

// Load reads the agent template of an app: dir is the app folder holding
// .ironflock, or the .ironflock folder itself. A missing file is
// ErrNoTemplate; an invalid one a *template.Error whose findings name the
// file's path.
func Load(dir string) (*Template, error) {
	path := filepath.Join(dir, template.Dir, template.AgentTemplateFile)
	if st, err := os.Stat(filepath.Join(dir, template.Dir)); err != nil || !st.IsDir() {
		path = filepath.Join(dir, template.AgentTemplateFile)
	}
	src, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &OpError{Op: "Load", Topic: path, Err: ErrNoTemplate}
	}
	if err != nil {
		return nil, &OpError{Op: "Load", Topic: path, Err: err}
	}
	return parse("Load", src, path)
}

// LoadDefault loads the agent template from the first folder of
// DefaultDirs that has one: the app's own template, inside its container.
func LoadDefault() (*Template, error) {
	for _, dir := range DefaultDirs {
		t, err := Load(dir)
		if !errors.Is(err, ErrNoTemplate) {
			return t, err
		}
	}
	return nil, &OpError{Op: "LoadDefault", Err: fmt.Errorf("%w in %v", ErrNoTemplate, DefaultDirs)}
}

// parse parses src for op, naming file in its findings.
func parse(op string, src []byte, file string) (*Template, error) {
	at, findings, err := template.ParseAgents(src)
	for i := range findings {
		findings[i].File = file
	}
	if err != nil {
		var te *template.Error
		if errors.As(err, &te) {
			te.File = file
		}
		return nil, &OpError{Op: op, Topic: file, Err: err}
	}
	return &Template{AgentTemplate: at, File: file, Warnings: findings}, nil
}
