// This file holds the entry points, Generate and Check, and the reading
// of the templates: the app's own and those of the apps it consumes.

package flockgen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// Config says what to generate.
type Config struct {
	// Dir is the app folder holding .ironflock, or the .ironflock folder
	// itself.
	Dir string
	// Package is the name of the generated file's package.
	Package string
	// Providers maps the name of an app the data template consumes to its
	// app folder (holding .ironflock/data-template.yml): its shared
	// tables get read-only handles. A consumed app without an entry gets
	// none (a warning says so).
	Providers map[string]string
}

// Result is generated code.
type Result struct {
	// Code is the Go file, gofmt'ed.
	Code []byte
	// Warnings are the templates' warnings (file:line:col: warning: …)
	// and the generator's own, one per line.
	Warnings []string
}

// TemplateError is the refusal of a template that is not valid: the
// report of template.ValidateDir, the same flockd validate prints.
type TemplateError struct {
	Report template.Report
}

// Error lists the error findings, one per line, as "file:line:col: path:
// message".
func (e *TemplateError) Error() string {
	var lines []string
	for _, f := range e.Report.Findings() {
		if f.Severity == template.SeverityError {
			lines = append(lines, f.String())
		}
	}
	return "flockgen: invalid template:\n\t" + strings.Join(lines, "\n\t")
}

// Error is a refusal of the generator itself: names that collide, a
// package name that is no Go identifier, a provider that is not consumed.
// Each problem starts with the file, line and column where it can be seen
// when there is one.
type Error struct {
	Problems []string
}

// Error lists the problems, one per line.
func (e *Error) Error() string {
	return "flockgen: cannot generate:\n\t" + strings.Join(e.Problems, "\n\t")
}

// Generate reads the templates of cfg.Dir (and of the providers) and
// returns the Go file. An invalid template is a *TemplateError, nothing
// is generated; a name problem an *Error.
func Generate(cfg Config) (*Result, error) {
	_, res, err := generate(cfg)
	return res, err
}

// generate is Generate, returning the generator too (Check reads its
// digest).
func generate(cfg Config) (*gen, *Result, error) {
	g, err := load(cfg)
	if err != nil {
		return nil, nil, err
	}
	res, err := g.generate()
	return g, res, err
}

// appTemplates are the parsed templates of one app folder.
type appTemplates struct {
	data      *template.DataTemplate
	dataSrc   source
	agents    *template.AgentTemplate
	agentsSrc source
	agentsRaw []byte
	warnings  []string
}

// readApp validates and parses the templates in dir. An invalid template
// is a *TemplateError.
func readApp(dir string) (*appTemplates, error) {
	report, err := template.ValidateDir(dir)
	if err != nil {
		return nil, fmt.Errorf("flockgen: %w", err)
	}
	if !report.OK() {
		return nil, &TemplateError{Report: report}
	}
	a := &appTemplates{}
	for _, f := range report.Findings() {
		a.warnings = append(a.warnings, f.String())
	}
	for _, fr := range report.Files {
		src, err := os.ReadFile(fr.Path)
		if err != nil {
			return nil, fmt.Errorf("flockgen: %w", err)
		}
		switch filepath.Base(fr.Path) {
		case template.DataTemplateFile:
			a.data, _, err = template.ParseData(src)
			a.dataSrc = parseSource(fr.Path, src)
		case template.AgentTemplateFile:
			a.agents, _, err = template.ParseAgents(src)
			a.agentsSrc = parseSource(fr.Path, src)
			a.agentsRaw = src
		}
		if err != nil {
			return nil, fmt.Errorf("flockgen: %s: %w", fr.Path, err)
		}
	}
	return a, nil
}

// provider is a consumed app whose template was given.
type provider struct {
	name string // as the consumer's template writes it (or the flag, for "*")
	dir  string
	data *template.DataTemplate
	src  source
}

// load reads every template cfg names.
func load(cfg Config) (*gen, error) {
	own, err := readApp(cfg.Dir)
	if err != nil {
		return nil, err
	}
	g := newGen(cfg, own)
	names := make([]string, 0, len(cfg.Providers))
	for name := range cfg.Providers {
		names = append(names, name)
	}
	slices.SortFunc(names, func(a, b string) int { return strings.Compare(strings.ToLower(a), strings.ToLower(b)) })
	for _, name := range names {
		dir := cfg.Providers[name]
		written, ok := consumed(own.data, name)
		if !ok {
			g.problem(own.dataSrc.at("consumes"), "app %q is not consumed by the data template; add it under consumes (or consume \"*\") before generating handles for it", name)
			continue
		}
		pt, err := readApp(dir)
		if err != nil {
			var te *TemplateError
			if errors.As(err, &te) {
				return nil, err
			}
			return nil, fmt.Errorf("flockgen: provider %s: %w", name, err)
		}
		if pt.data == nil {
			g.problem(own.dataSrc.at("consumes"), "provider %s: %s has no %s", name, dir, template.DataTemplateFile)
			continue
		}
		g.warnings = append(g.warnings, pt.warnings...)
		g.providers = append(g.providers, &provider{name: written, dir: dir, data: pt.data, src: pt.dataSrc})
	}
	if own.data != nil {
		for i, c := range own.data.Consumes {
			if c.App != "*" && !hasProvider(cfg.Providers, c.App) {
				g.warnings = append(g.warnings, fmt.Sprintf("%swarning: consumes[%d].app: no template given for app %q (flockgen -provider %s=DIR); it gets no handles",
					own.dataSrc.at("consumes", i, "app"), i, c.App, c.App))
			}
		}
	}
	return g, nil
}

// consumed returns how the data template names the consumed app name
// (compared case-insensitively; under "*" every app is consumed and keeps
// the given spelling).
func consumed(t *template.DataTemplate, name string) (string, bool) {
	if t == nil {
		return "", false
	}
	wildcard := false
	for _, c := range t.Consumes {
		if strings.EqualFold(c.App, name) {
			return c.App, true
		}
		wildcard = wildcard || c.App == "*"
	}
	return name, wildcard
}

func hasProvider(providers map[string]string, app string) bool {
	for name := range providers {
		if strings.EqualFold(name, app) {
			return true
		}
	}
	return false
}
