package agent_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/template"
)

// appDir writes src as the agent template of a new app folder.
func appDir(t *testing.T, src string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".ironflock"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".ironflock", "ai-template.yml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestLoad(t *testing.T) {
	dir := appDir(t, weatherYAML)
	path := filepath.Join(dir, ".ironflock", "ai-template.yml")
	for _, d := range []string{dir, filepath.Join(dir, ".ironflock")} {
		tpl, err := agent.Load(d)
		if err != nil {
			t.Fatal(err)
		}
		if tpl.File != path || tpl.Main != "assistant" || len(tpl.Warnings) != 0 {
			t.Errorf("Load(%s): file %s, main %s, warnings %v", d, tpl.File, tpl.Main, tpl.Warnings)
		}
	}
	// A mismatch names the file read.
	tpl, _ := agent.Load(dir)
	_, err := agent.Serve(t.Context(), unusedClient(t), tpl, forecastTool(nil))
	if err == nil || !strings.Contains(err.Error(), path+":28:5: archivist.tools.history: ") {
		t.Errorf("mismatch: %v", err)
	}

	_, err = agent.Load(t.TempDir())
	if !errors.Is(err, agent.ErrNoTemplate) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}

	bad := appDir(t, "a:\n  main: yes\n")
	_, err = agent.Load(bad)
	var te *template.Error
	if !errors.As(err, &te) || te.File != filepath.Join(bad, ".ironflock", "ai-template.yml") || te.Findings[0].File != te.File {
		t.Fatalf("invalid: %v", err)
	}
	if !strings.HasPrefix(err.Error(), "agent: Load \""+te.File+"\": template: "+te.File+" is invalid") {
		t.Errorf("invalid: %v", err)
	}
}

func TestParseWarnings(t *testing.T) {
	src := strings.Replace(weatherYAML, "  main: true\n", "  main: true\n  temperature: 0.2\n", 1)
	tpl, err := agent.Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(tpl.Warnings) != 1 || tpl.Warnings[0].Line != 3 || tpl.File != "ai-template.yml" {
		t.Errorf("warnings %v", tpl.Warnings)
	}
	if _, err := agent.Parse([]byte("{}")); !strings.HasPrefix(fmtErr(err), "agent: Parse \"ai-template.yml\": template: ai-template.yml is invalid") {
		t.Errorf("Parse: %v", err)
	}
}

func TestLoadDefault(t *testing.T) {
	saved := agent.DefaultDirs
	t.Cleanup(func() { agent.DefaultDirs = saved })
	empty, app := t.TempDir(), appDir(t, weatherYAML)
	agent.DefaultDirs = []string{empty, app}
	tpl, err := agent.LoadDefault()
	if err != nil || tpl.File != filepath.Join(app, ".ironflock", "ai-template.yml") {
		t.Errorf("LoadDefault: %v %v", tpl, err)
	}
	agent.DefaultDirs = []string{empty}
	if _, err := agent.LoadDefault(); !errors.Is(err, agent.ErrNoTemplate) {
		t.Errorf("none: %v", err)
	}
}

func fmtErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}
