package template

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNoTemplates is returned (wrapped, and matching fs.ErrNotExist) by
// ValidateDir when the folder holds neither template.
var ErrNoTemplates = fmt.Errorf("template: no %s or %s found: %w", DataTemplateFile, AgentTemplateFile, fs.ErrNotExist)

// Report is the result of ValidateDir: the findings of each template file
// that was present.
type Report struct {
	// Dir is the .ironflock folder that was read.
	Dir string
	// Files holds one entry per template file present, the data template
	// first.
	Files []FileReport
}

// FileReport holds the findings of one template file.
type FileReport struct {
	// Path is the file that was read.
	Path string
	// Findings are its findings in document order; their File is Path.
	Findings []Finding
}

// OK reports whether no finding is an error (warnings are allowed).
func (r Report) OK() bool {
	for _, f := range r.Files {
		if hasErrors(f.Findings) {
			return false
		}
	}
	return true
}

// Findings returns the findings of every file, in file then document order.
func (r Report) Findings() []Finding {
	var all []Finding
	for _, f := range r.Files {
		all = append(all, f.Findings...)
	}
	return all
}

// String renders the report as Write does.
func (r Report) String() string {
	var b strings.Builder
	_ = r.Write(&b)
	return b.String()
}

// Write prints one line per finding ("file:line:col: path: message") and a
// closing summary line per file, the form a command-line tool shows.
func (r Report) Write(w io.Writer) error {
	for _, f := range r.Files {
		errs, warns := 0, 0
		for _, x := range f.Findings {
			if x.Severity == SeverityError {
				errs++
			} else {
				warns++
			}
			if _, err := fmt.Fprintln(w, x.String()); err != nil {
				return err
			}
		}
		status := "ok"
		if errs > 0 {
			status = "invalid"
		}
		if _, err := fmt.Fprintf(w, "%s: %s (%d %s, %d %s)\n", f.Path, status,
			errs, plural(errs, "error", "errors"), warns, plural(warns, "warning", "warnings")); err != nil {
			return err
		}
	}
	return nil
}

// ValidateDir validates the templates of an app. dir is the app folder
// holding .ironflock, or the .ironflock folder itself. Either template may
// be absent; when both are, the error wraps ErrNoTemplates. Other errors
// report files that cannot be read; invalid templates are not errors but
// findings of the Report (see Report.OK).
func ValidateDir(dir string) (Report, error) {
	folder := dir
	if st, err := os.Stat(filepath.Join(dir, Dir)); err == nil && st.IsDir() {
		folder = filepath.Join(dir, Dir)
	} else if st, err := os.Stat(dir); err != nil {
		return Report{}, fmt.Errorf("template: %w", err)
	} else if !st.IsDir() {
		return Report{}, fmt.Errorf("template: %s is not a directory", dir)
	}
	r := Report{Dir: folder}
	parsers := []struct {
		name  string
		parse func([]byte) []Finding
	}{
		{DataTemplateFile, func(b []byte) []Finding { _, f, _ := ParseData(b); return f }},
		{AgentTemplateFile, func(b []byte) []Finding { _, f, _ := ParseAgents(b); return f }},
	}
	for _, p := range parsers {
		path := filepath.Join(folder, p.name)
		src, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Report{}, fmt.Errorf("template: %w", err)
		}
		fr := FileReport{Path: path, Findings: p.parse(src)}
		for i := range fr.Findings {
			fr.Findings[i].File = path
		}
		r.Files = append(r.Files, fr)
	}
	if len(r.Files) == 0 {
		msg := ""
		for _, alt := range []string{"data-template.yaml", "ai-template.yaml"} {
			if _, err := os.Stat(filepath.Join(folder, alt)); err == nil {
				msg += fmt.Sprintf(" (found %s: the platform reads only .yml)", alt)
			}
		}
		return r, fmt.Errorf("%w in %s%s", ErrNoTemplates, folder, msg)
	}
	return r, nil
}
