package template

import (
	"os"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// The templates in testdata are realistic, complete and valid: the seeds'
// keys and the fake platform's own template of docs/fake.md.

func TestFullDataTemplate(t *testing.T) {
	src, err := os.ReadFile("testdata/data-template.yml")
	if err != nil {
		t.Fatal(err)
	}
	tpl, fs, err := ParseData(src)
	if err != nil || len(fs) != 0 {
		t.Fatalf("ParseData: %v %v", err, fs)
	}
	col := func(id string, typ DataType) Column { return Column{ID: id, Type: typ, Path: DefaultPath(id)} }
	want := &DataTemplate{
		Tables: []Table{
			{
				Name: "sensordata", Description: "Readings of the machine sensors",
				DropAfter: "30 days", ChunkTimeInterval: "1 day", Columnstore: true, ColumnstoreAfter: "7 days",
				Downsample: &Downsample{Bucket: "1 hour", KeepFor: "1 year", Paths: []string{"temperature"}},
				Columns: []Column{
					{ID: "tsp", Name: "Timestamp", Type: TypeTimestamp, Path: "args[0].tsp"},
					{ID: "temperature", Name: "Temperature", Description: "degrees Celsius", Type: TypeNumeric, Path: "args[0].sensor.value"},
					col("n", TypeBigint),
					{ID: "source", Type: TypeString, Path: "kwargs.DEVICE_NAME"},
				},
			},
			{
				Name: "credentials", Private: true, EntityKey: []string{"machine"},
				Columns: []Column{
					col("tsp", TypeTimestamp), col("machine", TypeString),
					{ID: "api_key", Type: TypeString, Path: "args[0].api_key", Secret: true},
					col("settings", TypeJSON), col("active", TypeBoolean),
				},
			},
		},
		Transforms: []Transform{{
			Name: "sensordata_hourly", Description: "Hourly mean temperature", Materialize: true, Schedule: "0 * * * *",
			SQL:     "SELECT time_bucket('1 hour', tsp) AS tsp, avg(temperature) AS temperature\nFROM sensordata GROUP BY 1\n",
			Columns: []Column{col("tsp", TypeTimestamp), col("temperature", TypeNumeric)},
		}},
		Consumes: []Consume{{App: "weather", Reason: "outside temperature for the dashboard"}, {App: "*", Reason: "fleet overview"}},
		Files: &Files{
			Description: "Photos and reports",
			QuotaBytes:  1 << 30,
			Namespaces: []Namespace{
				{Name: "default", ContentTypes: []string{"*/*"}, MaxObjectBytes: 100 << 20, Share: ShareAuthenticated, LinkMaxTTL: 15 * time.Minute},
				{Name: "photos", Description: "camera snapshots", ContentTypes: []string{"image/*"}, MaxObjectBytes: 10 << 20,
					Retention: &Retention{DeleteAfter: "30 days"}, Share: ShareLink, LinkMaxTTL: time.Hour},
				{Name: "reports", Private: true, ContentTypes: []string{"application/pdf", "text/csv"}, MaxObjectBytes: 100 << 20,
					Share: ShareNone, LinkMaxTTL: 15 * time.Minute},
			},
		},
	}
	if d := cmp.Diff(want, tpl); d != "" {
		t.Errorf("data template mismatch (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"default", "photos", "reports"}, tpl.NamespaceNames()); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string{"credentials", "error-logs", "sensordata"}, tpl.TableNames()); d != "" {
		t.Error(d)
	}
}

func TestFullAgentTemplate(t *testing.T) {
	src, err := os.ReadFile("testdata/ai-template.yml")
	if err != nil {
		t.Fatal(err)
	}
	tpl, fs, err := ParseAgents(src)
	if err != nil {
		t.Fatal(err)
	}
	// The specialist's tool uses the named parameter form, as valid as the
	// JSON Schema form of the others.
	if len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
	obj := func(props map[string]any, required ...any) map[string]any {
		s := map[string]any{"type": "object", "properties": props}
		if len(required) > 0 {
			s["required"] = required
		}
		return s
	}
	str := func(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
	want := &AgentTemplate{
		Main: "assistant",
		Agents: map[string]*Agent{
			"assistant": {
				Name: "assistant", Main: true, DataAccess: true, Effort: EffortMedium,
				ToolDescription:  "Answers questions about the machines of this project",
				SystemPrompt:     "You help operators of the machines. Use the tools to read live values.\n",
				MaxContextTokens: 32000, MessagesAfterSummary: 20, MaxIterations: 10,
				Tools: map[string]*Tool{
					"read_temperature": {
						Name: "read_temperature", Description: "Reads the current temperature of a machine sensor", Topic: "read_temperature",
						Parameters: map[string]any{
							"type": "object",
							"properties": map[string]any{
								"sensor": map[string]any{"type": "string", "enum": []any{"inlet", "outlet"}, "description": "which sensor"},
								"unit":   str("celsius or fahrenheit"),
							},
							"required":             []any{"sensor"},
							"additionalProperties": false,
						},
						ParameterNames: []string{"sensor", "unit"},
					},
					"maintenance": {
						Name: "maintenance", Description: "Hands maintenance questions to the maintenance expert", Delegate: "maintenance_expert",
						Parameters: obj(map[string]any{}),
					},
				},
			},
			"maintenance_expert": {
				Name: "maintenance_expert", FileAccess: true,
				SystemPrompt:     "You know the maintenance manual by heart.",
				MaxContextTokens: 16000, MessagesAfterSummary: 10, MaxIterations: 5,
				Tools: map[string]*Tool{
					"schedule_service": {
						Name: "schedule_service", Description: "Schedules a service visit", Topic: "maintenance.schedule",
						Parameters:     obj(map[string]any{"date": str("ISO date of the visit"), "note": str("free text")}, "date"),
						ParameterNames: []string{"date", "note"},
					},
				},
			},
		},
	}
	// Positions are checked in agents_layout_test.go.
	if d := cmp.Diff(want, tpl, cmpopts.IgnoreFields(Tool{}, "Pos", "ParameterPositions")); d != "" {
		t.Errorf("agent template mismatch (-want +got):\n%s", d)
	}
}
