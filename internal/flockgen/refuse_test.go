// This file tests what the generator refuses: invalid templates (with the
// findings of flockd validate), ids that become one Go name, a provider
// that is not consumed, a bad package name; and what it only warns about.

package flockgen

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/template"
)

// writeApp writes an app folder with the templates given (empty: absent).
func writeApp(t *testing.T, data, ai string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, template.Dir), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range map[string]string{template.DataTemplateFile: data, template.AgentTemplateFile: ai} {
		if src == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, template.Dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// agentHeader opens an agent template of one agent, a, before its tools.
const agentHeader = `a:
  main: true
  system_prompt: x
  max_context_tokens: 2048
  messages_after_summary: 10
  max_iterations: 5
  tools:
`

// refused generates dir and returns the problems of the *Error.
func refused(t *testing.T, cfg Config) string {
	t.Helper()
	if cfg.Package == "" {
		cfg.Package = "app"
	}
	_, err := Generate(cfg)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("Generate: %v, want an *Error", err)
	}
	return strings.Join(e.Problems, "\n")
}

func TestInvalidTemplateNamesItsLine(t *testing.T) {
	dir := writeApp(t, `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: float}
`, "")
	_, err := Generate(Config{Dir: dir, Package: "app"})
	var te *TemplateError
	if !errors.As(err, &te) {
		t.Fatalf("Generate: %v, want a *TemplateError", err)
	}
	want := filepath.Join(dir, ".ironflock", "data-template.yml") + `:6:32: data.tables[0].columns[1].dataType: unknown type "float"`
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q\nlacks %q", err, want)
	}
	// The same findings as flockd validate.
	report, _ := template.ValidateDir(dir)
	if te.Report.String() != report.String() {
		t.Errorf("report %q, ValidateDir %q", te.Report.String(), report.String())
	}
}

func TestCollisionsNameBothIDs(t *testing.T) {
	for _, tc := range []struct {
		name, data, ai string
		want           []string
	}{
		{"columns", `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: vibration_rms, dataType: numeric}
        - {id: vibration_r_m_s, dataType: numeric}
`, "", []string{"data-template.yml:7:16: data.tables[0].columns[2].id: column vibration_rms and column vibration_r_m_s both become the Go name VibrationRMS in the fields of ReadingsRow"}},
		{"implicit column", `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: auth_id, dataType: string}
`, "", []string{"column auth_id and the implicit column authid both become the Go name AuthID"}},
		{"tables", `data:
  tables:
    - tablename: readings
      columns: [{id: tsp, dataType: timestamp}]
    - tablename: readings_row
      columns: [{id: tsp, dataType: timestamp}]
`, "", []string{"data-template.yml:5:18: the row type of table readings and the columns of table readings_row both become the Go name ReadingsRow"}},
		{"table and transform", `data:
  tables:
    - tablename: machine_state
      columns: [{id: tsp, dataType: timestamp}]
  transforms:
    - tablename: machine__state
      sql: SELECT 1
      columns: [{id: n, dataType: bigint}]
`, "", []string{"the columns of table machine_state and the columns of transform machine__state both become the Go name MachineState"}},
		{"tool parameters", "", agentHeader + `    t:
      description: x
      topic: t
      parameters:
        type: object
        properties:
          sensor_id: {type: string}
          sensorId: {type: string}
`, []string{"ai-template.yml:15:11: topic t: parameter sensor_id and parameter sensorId both become the Go name SensorID in the fields of TArgs"}},
		{"topics", "", agentHeader + `    one: {description: x, topic: set_limit}
    two: {description: x, topic: set.limit}
`, []string{"topic set.limit and topic set_limit both become the Go name SetLimit"}},
		{"tag", "", agentHeader + `    t:
      description: x
      topic: t
      parameters:
        type: object
        properties:
          "a,b": {type: string}
`, []string{`parameter "a,b" of topic t cannot be named in a json struct tag`}},
	} {
		got := refused(t, Config{Dir: writeApp(t, tc.data, tc.ai)})
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: problems\n%s\nlack %q", tc.name, got, w)
			}
		}
	}
}

func TestProvidersAndPackage(t *testing.T) {
	own := writeApp(t, "data:\n  tables: []\nconsumes:\n  - app: weather\n", "")
	weather := filepath.Join("testdata", "weather")
	if got := refused(t, Config{Dir: own, Providers: map[string]string{"dashboard": weather}}); !strings.Contains(got, `app "dashboard" is not consumed by the data template`) {
		t.Errorf("problems: %s", got)
	}
	if got := refused(t, Config{Dir: own, Package: "type"}); !strings.Contains(got, `package name "type" is not a Go identifier`) {
		t.Errorf("problems: %s", got)
	}
	// The provider's name is matched without case; a consumed app
	// without a template gets no handles and a warning.
	res, err := Generate(Config{Dir: own, Package: "app", Providers: map[string]string{"Weather": weather}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(res.Code), `const WeatherAppName = "weather"`) {
		t.Error("no handles for weather")
	}
	res, err = Generate(Config{Dir: own, Package: "app"})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, `data-template.yml:4:10: warning: consumes[0].app: no template given for app "weather"`) {
		t.Errorf("warnings: %q", w)
	}
	if strings.Contains(string(res.Code), "Weather") {
		t.Error("handles for weather without its template")
	}
}
