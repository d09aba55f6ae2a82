package template

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFiles creates the files (path relative to dir → content).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestValidateDir(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".ironflock/data-template.yml": dedent(minimal) + "version: 2\n",
		".ironflock/ai-template.yml":   "a:\n  main: yes\n",
	})
	folder := filepath.Join(dir, ".ironflock")
	for _, arg := range []string{dir, folder} {
		r, err := ValidateDir(arg)
		if err != nil {
			t.Fatalf("ValidateDir(%s): %v", arg, err)
		}
		if r.Dir != folder || len(r.Files) != 2 || r.OK() {
			t.Fatalf("ValidateDir(%s) = %+v", arg, r)
		}
		dataPath, aiPath := filepath.Join(folder, DataTemplateFile), filepath.Join(folder, AgentTemplateFile)
		if r.Files[0].Path != dataPath || r.Files[1].Path != aiPath {
			t.Errorf("files = %s, %s", r.Files[0].Path, r.Files[1].Path)
		}
		var got []string
		for _, f := range r.Findings() {
			got = append(got, f.String())
		}
		want := []string{
			dataPath + `:6:1: warning: version: unknown key "version" is ignored by the platform; allowed: data, consumes, files`,
			aiPath + ":1:1: no agent has main: true; mark exactly one agent as the main agent",
			aiPath + ":2:3: a.system_prompt: system_prompt is required; the agent's instructions",
			aiPath + ":2:3: a.tools: tools is required; a mapping of tool name to {description, topic or delegate, parameters}",
			aiPath + ":2:3: a.max_context_tokens: max_context_tokens is required; allowed: 1024 to 200000",
			aiPath + ":2:3: a.messages_after_summary: messages_after_summary is required; allowed: 1 to 1000",
			aiPath + ":2:3: a.max_iterations: max_iterations is required; allowed: 1 to 1000",
			aiPath + `:2:9: a.main: must be a boolean: write true or false; "yes" is a string in YAML 1.2`,
		}
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("findings (-want +got):\n%s", d)
		}
		text := r.String()
		for _, line := range []string{
			want[0],
			dataPath + ": ok (0 errors, 1 warning)",
			aiPath + ": invalid (7 errors, 0 warnings)",
		} {
			if !strings.Contains(text, line+"\n") {
				t.Errorf("String() lacks %q:\n%s", line, text)
			}
		}
	}
}

func TestValidateDirOneFile(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{".ironflock/ai-template.yml": dedent(ag("", ""))})
	r, err := ValidateDir(dir)
	if err != nil || !r.OK() || len(r.Files) != 1 || len(r.Findings()) != 0 {
		t.Fatalf("ValidateDir = %+v, %v", r, err)
	}
	if got, want := r.String(), filepath.Join(dir, ".ironflock", "ai-template.yml")+": ok (0 errors, 0 warnings)\n"; got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
}

func TestValidateDirErrors(t *testing.T) {
	empty := t.TempDir()
	_, err := ValidateDir(empty)
	if !errors.Is(err, ErrNoTemplates) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no templates: err = %v; want ErrNoTemplates and fs.ErrNotExist", err)
	}

	yamlExt := t.TempDir()
	writeFiles(t, yamlExt, map[string]string{".ironflock/data-template.yaml": "data: {}\n"})
	if _, err := ValidateDir(yamlExt); !errors.Is(err, ErrNoTemplates) || !strings.Contains(err.Error(), "found data-template.yaml: the platform reads only .yml") {
		t.Errorf(".yaml file: err = %v", err)
	}

	if _, err := ValidateDir(filepath.Join(empty, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing dir: err = %v", err)
	}

	file := filepath.Join(empty, "file")
	writeFiles(t, empty, map[string]string{"file": "x"})
	if _, err := ValidateDir(file); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("file: err = %v", err)
	}

	unreadable := t.TempDir()
	if err := os.MkdirAll(filepath.Join(unreadable, ".ironflock", DataTemplateFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ValidateDir(unreadable); err == nil || errors.Is(err, ErrNoTemplates) {
		t.Errorf("template is a directory: err = %v; want a read error", err)
	}
}

type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

func TestReportWriteError(t *testing.T) {
	r := Report{Files: []FileReport{{Path: "p", Findings: []Finding{{Message: "m"}}}}}
	for n := range 2 {
		if err := r.Write(&failWriter{n: n}); err == nil {
			t.Errorf("Write with %d good writes: no error", n)
		}
	}
}
