package agent_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/agent"
	"github.com/flockgo/ironflock/template"
)

// mismatch is the expected form of a finding of BindError: Msg is a
// substring of the message.
type mismatch struct {
	Line, Col int
	Path      string
	Msg       string
}

// mismatchesOf binds tools to the weather template through Serve on a
// client that is never used: a mismatch is found before anything
// registers.
func mismatchesOf(t *testing.T, tpl *agent.Template, tools ...agent.Tool) []mismatch {
	t.Helper()
	_, err := agent.Serve(context.Background(), unusedClient(t), tpl, tools...)
	var be *agent.BindError
	if !errors.As(err, &be) || !errors.Is(err, agent.ErrMismatch) {
		t.Fatalf("Serve: %v, want a *BindError", err)
	}
	if be.File != "ai-template.yml" {
		t.Errorf("File = %q", be.File)
	}
	var out []mismatch
	for _, f := range be.Mismatches {
		if f.Severity != template.SeverityError || f.File != be.File {
			t.Errorf("finding %+v", f)
		}
		out = append(out, mismatch{f.Line, f.Column, f.Path, f.Message})
	}
	return out
}

// checkMismatches compares findings, a message matching by substring.
func checkMismatches(t *testing.T, got, want []mismatch) {
	t.Helper()
	for i := range got {
		if i < len(want) && strings.Contains(got[i].Msg, want[i].Msg) {
			got[i].Msg = want[i].Msg
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatches (-want +got):\n%s", d)
	}
}

func TestServeMissingAndExtraTools(t *testing.T) {
	tpl := mustParse(t, weatherYAML)
	noop := func(context.Context, map[string]any) (any, error) { return nil, nil }
	checkMismatches(t, mismatchesOf(t, tpl,
		forecastTool(nil),
		agent.Untyped("weather.radar", noop),
		agent.Untyped("ask_archive", noop),
		agent.Untyped("forecast", noop),
		agent.Untyped("", noop),
		agent.Untyped("weather.forecast", noop),
	), []mismatch{
		{28, 5, "archivist.tools.history", `topic tool "history" (topic "weather.history") has no Go tool; serve it with agent.Typed("weather.history", …)`},
		{0, 0, "", `the Go tool of topic "weather.radar" serves no topic tool of ai-template.yml (its topics: weather.forecast, weather.history)`},
		{0, 0, "", `the Go tool of topic "ask_archive" serves no topic tool of ai-template.yml (tool "ask_archive" of agent "assistant" delegates to agent "archivist": it runs no Go code)`},
		{0, 0, "", `the Go tool of topic "forecast" serves no topic tool of ai-template.yml (tool "forecast" of agent "assistant" has topic "weather.forecast": name the topic, not the tool)`},
		{0, 0, "", "a Go tool has an empty topic"},
		{0, 0, "", `two Go tools serve topic "weather.forecast"`},
	})
}

func TestServeTypeMismatches(t *testing.T) {
	type wrongForecast struct {
		City  int       `json:"city"`            // a string in the template
		Days  *int      `json:"days"`            // required in the template
		Unit  string    `json:"unit"`            // optional in the template
		Extra bool      `json:"extra,omitempty"` // not a parameter
		When  time.Time `json:"-"`               // ignored
	}
	type wrongHistory struct {
		City     string     `json:"city"`
		Since    *int64     `json:"since"` // a date-time string
		Stations []int      `json:"stations,omitempty"`
		Where    *time.Time `json:"where"` // an object
	}
	type nestedHistory struct {
		historyArgs
		Where *struct {
			Lat float64 `json:"lat"`
			Lon *string `json:"lon"`
		} `json:"where"`
	}
	tpl := mustParse(t, weatherYAML)
	nop := func(context.Context, wrongForecast) (any, error) { return nil, nil }
	checkMismatches(t, mismatchesOf(t, tpl,
		agent.Typed("weather.forecast", nop),
		agent.Typed("weather.history", func(context.Context, wrongHistory) (any, error) { return nil, nil }),
	), []mismatch{
		{13, 9, "assistant.tools.forecast.parameters.properties", `field wrongForecast.Extra (json "extra") is not a parameter of the tool; declare "extra" under properties, or tag the field` + " `json:\"-\"`"},
		{14, 18, "assistant.tools.forecast.parameters.properties.city.type", `parameter "city" is a string, but field wrongForecast.City is int; use string`},
		{16, 11, "assistant.tools.forecast.parameters.properties.unit", `parameter "unit" is optional, but field wrongForecast.Unit is required (no pointer, no omitempty); add "unit" to required, or make the field a pointer or tag it omitempty`},
		{17, 26, "assistant.tools.forecast.parameters.required[1]", `parameter "days" is required, but field wrongForecast.Days is optional (a pointer, or omitempty); make it a plain field, or drop "days" from required`},
		{35, 19, "archivist.tools.history.parameters.properties.since.type", `parameter "since" is a string, but field wrongHistory.Since is int64`},
		{36, 43, "archivist.tools.history.parameters.properties.stations.items.type", `parameter "stations[]" is a string, but field wrongHistory.Stations[] is int`},
		{38, 13, "archivist.tools.history.parameters.properties.where.type", `parameter "where" is an object, but field wrongHistory.Where is time.Time; use a struct or a map[string]T`},
	})
	checkMismatches(t, mismatchesOf(t, tpl, forecastTool(nil),
		agent.Typed("weather.history", func(context.Context, nestedHistory) (any, error) { return nil, nil }),
	), []mismatch{
		{39, 53, "archivist.tools.history.parameters.properties.where.properties.lon.type", `parameter "where.lon" is a number, but field nestedHistory.Where.Lon is string; use float64`},
		{40, 29, "archivist.tools.history.parameters.properties.where.required[1]", `parameter "where.lon" is required, but field nestedHistory.Where.Lon is optional`},
	})
	checkMismatches(t, mismatchesOf(t, tpl, historyTool(),
		agent.Typed("weather.forecast", func(context.Context, string) (any, error) { return nil, nil }),
	), []mismatch{
		{8, 5, "assistant.tools.forecast", `the Go tool of topic "weather.forecast" takes string; a typed tool takes a struct whose fields are the parameters`},
	})
	checkMismatches(t, mismatchesOf(t, tpl, historyTool(), agent.Typed[forecastArgs, any]("weather.forecast", nil)),
		[]mismatch{{0, 0, "", `the Go tool of topic "weather.forecast" has a nil function`}})
}

func TestServeTypesThatFit(t *testing.T) {
	// Every parameter has a field of a fitting type: integers for
	// "integer" (floats hold them too), any for anything, a map for an
	// object, a TextUnmarshaler for a string, json.RawMessage-like types
	// decide themselves.
	type loose struct {
		City     any            `json:"city"`
		Since    *time.Time     `json:"since,omitempty"`
		Stations []any          `json:"stations,omitempty"`
		Where    map[string]any `json:"where,omitzero"`
	}
	type fitting struct {
		City string  `json:"city"`
		Days float64 `json:"days"`
		Unit *string `json:"unit"`
	}
	tpl := mustParse(t, weatherYAML)
	w := newWeatherWorld(t)
	svc, err := agent.Serve(testCtx(t), w.c, tpl,
		agent.Typed("weather.history", func(context.Context, loose) (int, error) { return 0, nil }),
		agent.Typed("weather.forecast", func(context.Context, fitting) (int, error) { return 0, nil }),
	)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"weather.forecast", "weather.history"}, svc.Topics()); d != "" {
		t.Errorf("Topics (-want +got):\n%s", d)
	}
}

func TestServeSharedTopic(t *testing.T) {
	// Two agents serving one topic must declare the same parameters.
	src := weatherYAML + `    again:
      description: The same device function.
      topic: weather.forecast
      parameters: {type: object, properties: {city: {type: string}}}
`
	checkMismatches(t, mismatchesOf(t, mustParse(t, src), forecastTool(nil), historyTool()), []mismatch{
		{42, 5, "archivist.tools.again", `tool "again" of agent "archivist" serves topic "weather.forecast" like tool "forecast" of agent "assistant" (line 8) but with other parameters`},
	})
}

func TestBindErrorText(t *testing.T) {
	_, err := agent.Serve(context.Background(), unusedClient(t), mustParse(t, weatherYAML), forecastTool(nil))
	want := "agent: Serve: 1 mismatch between ai-template.yml and the Go tools\n" +
		"\tai-template.yml:28:5: archivist.tools.history: topic tool \"history\" (topic \"weather.history\") has no Go tool; " +
		"serve it with agent.Typed(\"weather.history\", …) or agent.Untyped(\"weather.history\", …)"
	if err == nil || err.Error() != want {
		t.Errorf("error:\n%v\nwant:\n%s", err, want)
	}
}
