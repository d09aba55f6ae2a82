package agent

import (
	"strings"
	"testing"

	"github.com/flockgo/ironflock/template"
)

func TestRefusalTexts(t *testing.T) {
	params := oneTool(t, `
        type: object
        properties:
          city: {type: string, description: "The city to look up, as its English name, for example Oslo or Trondheim"}
          days: {type: integer, minimum: 1, maximum: 7}
          unit: {type: string, enum: [C, F]}
          since: {type: string, format: date-time}
          where:
            type: object
            properties: {lat: {type: number}}
            required: [lat]
          tags: {type: array, items: {type: string}}
        required: [city, days]
        additionalProperties: false
`).Parameters
	sch, err := compileSchema(params)
	if err != nil {
		t.Fatal(err)
	}
	props := params["properties"].(map[string]any)
	for _, tc := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"city": "Oslo", "days": int64(2)}, ""},
		{map[string]any{"city": "Oslo", "days": 2.0, "since": "2026-01-02T03:04:05Z", "tags": []any{"a"}, "where": map[string]any{"lat": 1}}, ""},
		{map[string]any{}, `invalid arguments: missing required parameter "city" (a string: The city to look up, as its English name, for example Oslo o…); ` +
			`missing required parameter "days" (an integer)`},
		{map[string]any{"city": 5, "days": "two"}, `invalid arguments: parameter "city": got number, want string; parameter "days": got string, want integer`},
		{map[string]any{"city": "Oslo", "days": int64(9)}, `invalid arguments: parameter "days": maximum: got 9, want 7`},
		{map[string]any{"city": "Oslo", "days": 1.5}, `invalid arguments: parameter "days": got number, want integer`},
		{map[string]any{"city": "Oslo", "days": int64(1), "unit": "K"}, `invalid arguments: parameter "unit": value must be one of 'C', 'F'`},
		{map[string]any{"city": "Oslo", "days": int64(1), "since": "yesterday"}, `invalid arguments: parameter "since": 'yesterday' is not valid date-time: `},
		{map[string]any{"city": "Oslo", "days": int64(1), "town": "x"}, `invalid arguments: unknown parameter "town" (the parameters are city, days, since, tags, unit, where)`},
		{map[string]any{"city": "Oslo", "days": int64(1), "where": map[string]any{}}, `invalid arguments: missing required parameter "where.lat"`},
		{map[string]any{"city": "Oslo", "days": int64(1), "tags": []any{"a", 2}}, `invalid arguments: parameter "tags[1]": got number, want string`},
		{map[string]any{"city": []byte("Oslo"), "days": int64(1)}, ""},
	} {
		got := validate(sch, props, tc.args)
		if tc.want == "" && got != "" || tc.want != "" && (len(got) < len(tc.want) || got[:len(tc.want)] != tc.want) {
			t.Errorf("validate(%v):\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

// oneTool parses an agent template of one agent "a" with one tool "t"
// whose parameters are the given YAML (indented under parameters:).
func oneTool(tb testing.TB, parameters string) *template.Tool {
	tb.Helper()
	tpl, _, err := template.ParseAgents([]byte(`a:
  main: true
  system_prompt: s
  max_context_tokens: 1024
  messages_after_summary: 1
  max_iterations: 1
  tools:
    t:
      description: d
      topic: t
      parameters:
` + strings.TrimPrefix(parameters, "\n")))
	if err != nil {
		tb.Fatal(err)
	}
	return tpl.Agents["a"].Tools["t"]
}
