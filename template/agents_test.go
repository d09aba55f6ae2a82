package template

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// agentHead is agent a with every required key (lines 1 to 7), its tools
// mapping opened on line 7.
const agentHead = "a:\n  main: true\n  system_prompt: You help.\n  max_context_tokens: 2048\n" +
	"  messages_after_summary: 10\n  max_iterations: 5\n  tools:\n"

// agentB is a second, valid agent b (6 lines) to delegate to.
const agentB = "b:\n  system_prompt: You know the manual.\n  max_context_tokens: 1024\n" +
	"  messages_after_summary: 1\n  max_iterations: 1\n  tools: {s: {description: d, topic: s}}\n"

// ag returns a valid template (lines 1 to 10) with agent a's key line
// `old` replaced by `repl` (removed when repl is empty).
func ag(old, repl string) string {
	src := agentHead + "    t:\n      description: Reads a value\n      topic: read_value\n"
	if old == "" {
		return src
	}
	if repl == "" {
		return strings.Replace(src, old+"\n", "", 1)
	}
	return strings.Replace(src, old, repl, 1)
}

// tool returns agent a with one tool t whose keys start at line 9, and
// agent b after it.
func tool(lines ...string) string {
	return agentHead + "    t:\n" + indent(6, lines) + agentB
}

// params returns a topic tool whose parameters' keys start at line 12.
func params(lines ...string) string {
	return agentHead + "    t:\n      description: d\n      topic: t\n      parameters:\n" + indent(8, lines)
}

func TestParseAgentsDocument(t *testing.T) {
	runAgents(t, []tcase{
		{name: "valid", src: ag("", "")},
		{name: "empty file", src: "", want: []want{E(1, 1, "", "empty template; an agent template maps agent names to agents, one of them with main: true")}},
		{name: "empty mapping", src: "{}\n", want: []want{E(1, 1, "", "declares no agent; at least one agent is required, one of them with main: true")}},
		{name: "root a list", src: "- a\n", want: []want{E(1, 1, "", "must be a mapping of agent name to agent, got a list")}},
		{name: "syntax error", src: "a: {\n", want: []want{E(1, 0, "", "invalid YAML")}},
		{name: "agent not a mapping", src: "a: 3\n", want: []want{E(1, 4, "a", "must be an agent mapping with system_prompt, tools, max_context_tokens, messages_after_summary and max_iterations, got the number 3")}},
		{name: "no main", src: ag("  main: true", ""), want: []want{E(1, 1, "", "no agent has main: true; mark exactly one agent as the main agent")}},
		{name: "main false", src: ag("main: true", "main: false"), want: []want{E(1, 1, "", "no agent has main: true")}},
		{name: "main yes", src: ag("main: true", "main: yes"), want: []want{
			E(1, 1, "", "no agent has main: true"),
			E(2, 9, "a.main", `must be a boolean: write true or false; "yes" is a string in YAML 1.2`),
		}},
		{name: "two mains", src: ag("", "") + strings.Replace(agentB, "b:\n", "b:\n  main: true\n", 1), want: []want{
			E(12, 9, "b.main", `agent "b" is main as well as "a" (line 2); exactly one agent may have main: true`),
		}},
		{name: "second agent", src: ag("", "") + agentB},
		{name: "unknown agent key", src: ag("", "") + "  systemPrompt: x\n", want: []want{W(11, 3, "a.systemPrompt", `unknown key "systemPrompt" is ignored by the platform; did you mean "system_prompt"?`)}},
		{name: "unknown key without suggestion", src: ag("", "") + "  temperature: 0.2\n", want: []want{W(11, 3, "a.temperature", "allowed: system_prompt, tools, max_context_tokens, messages_after_summary, max_iterations, tool_description, main, data_access, file_access, log_access, web_search, effort")}},
		{name: "agent name needing quotes", src: strings.Replace(ag("", ""), "a:", `"my agent":`, 1), want: nil},
	})
}

func TestParseAgentsAgentKeys(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	runAgents(t, []tcase{
		{name: "system prompt missing", src: ag("  system_prompt: You help.", ""), want: []want{E(2, 3, "a.system_prompt", "system_prompt is required; the agent's instructions")}},
		{name: "system prompt empty", src: ag("system_prompt: You help.", `system_prompt: ""`), want: []want{E(3, 18, "a.system_prompt", "is empty; write the text")}},
		{name: "system prompt 25000", src: ag("system_prompt: You help.", "system_prompt: "+long(25000))},
		{name: "system prompt 25001", src: ag("system_prompt: You help.", "system_prompt: "+long(25001)), want: []want{E(3, 18, "a.system_prompt", "is 25001 characters long; allowed: at most 25000")}},
		{name: "system prompt counts characters", src: ag("system_prompt: You help.", "system_prompt: "+strings.Repeat("ü", 25000))},
		{name: "system prompt a list", src: ag("system_prompt: You help.", "system_prompt: [a]"), want: []want{E(3, 18, "a.system_prompt", "must be a string, got a list")}},
		{name: "system prompt block scalar", src: ag("system_prompt: You help.", "system_prompt: |\n    line one\n    line two")},
		{name: "max_context_tokens 1023", src: ag("max_context_tokens: 2048", "max_context_tokens: 1023"), want: []want{E(4, 23, "a.max_context_tokens", "max_context_tokens 1023 is out of range; allowed: 1024 to 200000")}},
		{name: "max_context_tokens 1024", src: ag("max_context_tokens: 2048", "max_context_tokens: 1024")},
		{name: "max_context_tokens 200000", src: ag("max_context_tokens: 2048", "max_context_tokens: 200000")},
		{name: "max_context_tokens 200001", src: ag("max_context_tokens: 2048", "max_context_tokens: 200001"), want: []want{E(4, 23, "a.max_context_tokens", "out of range; allowed: 1024 to 200000")}},
		{name: "max_context_tokens string", src: ag("max_context_tokens: 2048", `max_context_tokens: "2048"`), want: []want{E(4, 23, "a.max_context_tokens", `must be an integer, got the string "2048"; remove the quotes`)}},
		{name: "max_context_tokens float", src: ag("max_context_tokens: 2048", "max_context_tokens: 2048.5"), want: []want{E(4, 23, "a.max_context_tokens", "must be an integer, got the number 2048.5")}},
		{name: "max_context_tokens missing", src: ag("  max_context_tokens: 2048", ""), want: []want{E(2, 3, "a.max_context_tokens", "max_context_tokens is required; allowed: 1024 to 200000")}},
		{name: "messages_after_summary 0", src: ag("messages_after_summary: 10", "messages_after_summary: 0"), want: []want{E(5, 27, "a.messages_after_summary", "messages_after_summary 0 is out of range; allowed: 1 to 1000")}},
		{name: "messages_after_summary 1000", src: ag("messages_after_summary: 10", "messages_after_summary: 1000")},
		{name: "messages_after_summary 1001", src: ag("messages_after_summary: 10", "messages_after_summary: 1001"), want: []want{E(5, 27, "a.messages_after_summary", "allowed: 1 to 1000")}},
		{name: "messages_after_summary missing", src: ag("  messages_after_summary: 10", ""), want: []want{E(2, 3, "a.messages_after_summary", "messages_after_summary is required; allowed: 1 to 1000")}},
		{name: "max_iterations 0", src: ag("max_iterations: 5", "max_iterations: 0"), want: []want{E(6, 19, "a.max_iterations", "max_iterations 0 is out of range; allowed: 1 to 1000")}},
		{name: "max_iterations 1", src: ag("max_iterations: 5", "max_iterations: 1")},
		{name: "max_iterations 1001", src: ag("max_iterations: 5", "max_iterations: 1001"), want: []want{E(6, 19, "a.max_iterations", "allowed: 1 to 1000")}},
		{name: "max_iterations missing", src: ag("  max_iterations: 5", ""), want: []want{E(2, 3, "a.max_iterations", "max_iterations is required; allowed: 1 to 1000")}},
		{name: "tool_description 2000", src: ag("", "") + "  tool_description: " + long(2000) + "\n"},
		{name: "tool_description 2001", src: ag("", "") + "  tool_description: " + long(2001) + "\n", want: []want{E(11, 21, "a.tool_description", "is 2001 characters long; allowed: at most 2000")}},
		{name: "built-in tools", src: ag("", "") + "  data_access: true\n  file_access: false\n  log_access: true\n  web_search: true\n"},
		{name: "built-in tool on", src: ag("", "") + "  web_search: on\n", want: []want{E(11, 15, "a.web_search", `must be a boolean: write true or false; "on" is a string in YAML 1.2`)}},
		{name: "data_access number", src: ag("", "") + "  data_access: 1\n", want: []want{E(11, 16, "a.data_access", "must be a boolean (true or false), got the number 1")}},
		{name: "effort low", src: ag("", "") + "  effort: low\n"},
		{name: "effort high", src: ag("", "") + "  effort: high\n"},
		{name: "effort unknown", src: ag("", "") + "  effort: max\n", want: []want{E(11, 11, "a.effort", `unknown effort "max"; allowed: low, medium, high`)}},
		{name: "tools missing", src: strings.Replace(ag("", ""), "  tools:\n    t:\n      description: Reads a value\n      topic: read_value\n", "", 1), want: []want{E(2, 3, "a.tools", "tools is required; a mapping of tool name to {description, topic or delegate, parameters}")}},
		{name: "tools empty", src: agentHead[:len(agentHead)-1] + " {}\n", want: []want{E(7, 10, "a.tools", "declares no tool; allowed: at least one")}},
		{name: "tools a list", src: agentHead + "    - t\n", want: []want{E(8, 5, "a.tools", "must be a mapping of tool name to tool, got a list")}},
	})
}

func TestParseAgentsTools(t *testing.T) {
	runAgents(t, []tcase{
		{name: "topic", src: tool("description: d", "topic: machine.read_value_2")},
		{name: "delegate", src: tool("description: d", "delegate: b")},
		{name: "description missing", src: tool("topic: t"), want: []want{E(9, 7, "a.tools.t.description", "description is required; tell the model what the tool does")}},
		{name: "description 1000", src: tool("description: "+strings.Repeat("d", 1000), "topic: t")},
		{name: "description 1001", src: tool("description: "+strings.Repeat("d", 1001), "topic: t"), want: []want{E(9, 20, "a.tools.t.description", "is 1001 characters long; allowed: at most 1000")}},
		{name: "description blank", src: tool("description: ' '", "topic: t"), want: []want{E(9, 20, "a.tools.t.description", "is empty; write the text")}},
		{name: "topic and delegate", src: tool("description: d", "topic: t", "delegate: b"), want: []want{E(11, 17, "a.tools.t.delegate", "a tool has either topic (a device function) or delegate (another agent), not both")}},
		{name: "neither topic nor delegate", src: tool("description: d"), want: []want{E(9, 7, "a.tools.t", "a tool needs topic (the name passed to RegisterDeviceFunction) or delegate (another agent of this file)")}},
		{name: "topic with double dot", src: tool("description: d", "topic: a..b"), want: []want{E(10, 14, "a.tools.t.topic", `invalid topic "a..b"; allowed: dot-separated parts of letters, digits and _ (^[a-zA-Z0-9_]+(\.[a-zA-Z0-9_]+)*$)`)}},
		{name: "topic with hyphen", src: tool("description: d", "topic: read-value"), want: []want{E(10, 14, "a.tools.t.topic", `invalid topic "read-value"`)}},
		{name: "topic with leading dot", src: tool("description: d", "topic: .a"), want: []want{E(10, 14, "a.tools.t.topic", `invalid topic ".a"`)}},
		{name: "topic number", src: tool("description: d", "topic: 42"), want: []want{W(10, 14, "a.tools.t.topic", "the number 42 is read as text")}},
		{name: "delegate unknown", src: tool("description: d", "delegate: c"), want: []want{E(10, 17, "a.tools.t.delegate", `unknown agent "c"; allowed: another agent of this file (b)`)}},
		{name: "delegate to itself", src: tool("description: d", "delegate: a"), want: []want{E(10, 17, "a.tools.t.delegate", `agent "a" cannot delegate to itself; allowed: another agent of this file (b)`)}},
		{name: "delegate without others", src: agentHead + "    t: {description: d, delegate: a}\n", want: []want{E(8, 35, "a.tools.t.delegate", `cannot delegate to itself; allowed: another agent of this file (there is none)`)}},
		{name: "tool not a mapping", src: agentHead + "    t: read_value\n", want: []want{E(8, 8, "a.tools.t", "must be a tool mapping with description and topic or delegate")}},
		{name: "tool name for models", src: agentHead + "    read value: {description: d, topic: t}\n", want: []want{W(8, 5, `a.tools["read value"]`, `tool name "read value" may be refused by models; use 1 to 64 letters, digits, _ and -`)}},
		{name: "unknown tool key", src: tool("description: d", "topic: t", "procedure: x"), want: []want{W(11, 7, "a.tools.t.procedure", "allowed: description, topic, delegate, parameters")}},
	})
}

func TestParseAgentsParameters(t *testing.T) {
	runAgents(t, []tcase{
		{name: "schema", src: params(
			"type: object",
			"properties:",
			"  sensor: {type: string, enum: [inlet, outlet]}",
			"  limit: {type: integer, minimum: 1}",
			"  tags: {type: array, items: {type: string}}",
			"required: [sensor]",
			"additionalProperties: false",
		)},
		{name: "internal reference", src: params("type: object", "properties: {p: {$ref: '#/$defs/p'}}", "$defs: {p: {type: string}}")},
		{name: "type missing", src: params("properties: {p: {type: string}}"), want: []want{E(12, 9, "a.tools.t.parameters", "the schema needs type: object at its top; tool arguments are always an object")}},
		{name: "type not object", src: params("type: array", "items: {type: string}"), want: []want{E(12, 15, "a.tools.t.parameters.type", `type must be "object" (tool arguments are always an object), got array`)}},
		{name: "invalid type in a property", src: params("type: object", "properties:", "  p: {type: strin}"), want: []want{E(14, 21, "a.tools.t.parameters.properties.p.type", "not a valid JSON Schema: value must be one of 'array', 'boolean', 'integer', 'null', 'number', 'object', 'string'")}},
		{name: "required not a list", src: params("type: object", "properties: {p: {type: string}}", "required: p"), want: []want{E(14, 19, "a.tools.t.parameters.required", "not a valid JSON Schema: got string, want array")}},
		{name: "invalid pattern", src: params("type: object", "properties: {p: {type: string, pattern: '('}}"), want: []want{E(13, 49, "a.tools.t.parameters.properties.p.pattern", "not a valid JSON Schema: '(' is not valid regex")}},
		{name: "invalid item in a list", src: params("type: object", "properties: {p: {type: string}}", "allOf: [{type: object}, 3]"), want: []want{E(14, 33, "a.tools.t.parameters.allOf[1]", "not a valid JSON Schema: got number, want")}},
		{name: "external reference", src: params("type: object", "properties: {p: {$ref: 'https://example.com/p.json'}}"), want: []want{E(12, 9, "a.tools.t.parameters", "parameters may not refer to external schemas (https://example.com/p.json); define them under $defs")}},
		{name: "file reference", src: params("type: object", "properties: {p: {$ref: 'file:///etc/passwd'}}"), want: []want{E(12, 9, "a.tools.t.parameters", "parameters may not refer to external schemas (file:///etc/passwd)")}},
		{name: "missing internal reference", src: params("type: object", "properties: {p: {$ref: '#/$defs/missing'}}"), want: []want{E(12, 9, "a.tools.t.parameters", `parameters is not a valid JSON Schema: json-pointer in "#/$defs/missing" not found`)}},
		{name: "external metaschema", src: params("$schema: 'https://example.com/s'", "type: object"), want: []want{E(12, 9, "a.tools.t.parameters", "parameters may not refer to external schemas (https://example.com/s)")}},
		{name: "relative reference", src: params("type: object", "$id: 'https://x.example/y'", "properties: {p: {$ref: 'z.json'}}"), want: []want{E(12, 9, "a.tools.t.parameters", "parameters may not refer to external schemas (https://x.example/z.json)")}},
		{name: "draft-07 metaschema", src: params("$schema: 'http://json-schema.org/draft-07/schema#'", "type: object", "properties: {p: {type: strin}}"), want: []want{E(14, 32, "a.tools.t.parameters.properties.p.type", "not a valid JSON Schema: value must be one of")}},
		{name: "property name with slash and tilde", src: params("type: object", "properties: {'a/b~c': {type: strin}}"), want: []want{E(13, 38, `a.tools.t.parameters.properties["a/b~c"].type`, "not a valid JSON Schema")}},
		{name: "recursive reference", src: params("type: object", "properties: {p: {type: array, items: {$ref: '#/properties/p'}}}")},
		{name: "not a mapping", src: params("- sensor"), want: []want{E(12, 9, "a.tools.t.parameters", "must be a JSON Schema object such as {type: object, properties: {city: {type: string}}, required: [city]}, got a list")}},
		{name: "empty", src: agentHead + "    t: {description: d, topic: t, parameters: {}}\n"},
		{name: "NaN", src: params("type: object", "properties: {p: {type: number, maximum: .nan}}"), want: []want{E(13, 49, "a.tools.t.parameters.properties.p.maximum", ".nan is not a JSON number")}},
		{name: "required names an undeclared parameter", src: params("type: object", "properties: {p: {type: string}}", "required: [p, q]"), want: []want{W(14, 19, "a.tools.t.parameters.required", `required parameter "q" is not declared in properties`)}},
		{name: "device_key declared", src: params("type: object", "properties: {device_key: {type: integer}}"), want: []want{W(12, 9, "a.tools.t.parameters", "the platform adds its own required integer device_key to every topic tool and strips it before the call")}},
		// The named form of the platform documentation, name: {type,
		// description, required}, is read as
		// the JSON Schema form is: without a finding.
		{name: "named form", src: params(
			"sensor: {type: string, description: which sensor, required: true}",
			"unit: {type: string, description: unit}",
		)},
		{name: "named form with a parameter named type", src: params("type: {type: string, description: kind}")},
		{name: "named form, required false", src: params("sensor: {type: string, description: which, required: false}")},
		{name: "named form, required yes", src: params("sensor: {type: string, required: yes}"), want: []want{
			E(12, 42, "a.tools.t.parameters.sensor.required", `must be a boolean: write true or false; "yes" is a string in YAML 1.2`),
		}},
		{name: "named form, invalid type", src: params("sensor: {type: strin}"), want: []want{
			E(12, 24, "a.tools.t.parameters.sensor.type", "not a valid JSON Schema: value must be one of"),
		}},
		{name: "named form, parameter not a mapping", src: params("sensor: string"), want: []want{
			E(12, 17, "a.tools.t.parameters.sensor", `must be a parameter mapping with type and description, got the string "string"`),
		}},
		{name: "schema keyword with a mapping", src: params("properties: {p: {type: string}}", "type: object")},
	})
}

func TestParametersNormalised(t *testing.T) {
	tpl, _ := mustAgents(t, params(
		"type: object",
		"properties:",
		"  n: {type: integer, default: 3, maximum: 1.5e3}",
		"  b: {type: boolean, default: false}",
		"  s: {type: string, default: 2024-01-01, enum: [a, null]}",
		"required: [n]",
	))
	got := tpl.Agents["a"].Tools["t"].Parameters
	wantSchema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"n": map[string]any{"type": "integer", "default": int64(3), "maximum": 1500.0},
			"b": map[string]any{"type": "boolean", "default": false},
			"s": map[string]any{"type": "string", "default": "2024-01-01", "enum": []any{"a", nil}},
		},
		"required": []any{"n"},
	}
	if d := cmp.Diff(wantSchema, got); d != "" {
		t.Error(d)
	}

	tpl, fs := mustAgents(t, params("sensor: {type: string, description: which, required: true}", "unit: {type: string, required: false}"))
	got = tpl.Agents["a"].Tools["t"].Parameters
	wantSchema = map[string]any{
		"type": "object",
		"properties": map[string]any{
			"sensor": map[string]any{"type": "string", "description": "which"},
			"unit":   map[string]any{"type": "string"},
		},
		"required": []any{"sensor"},
	}
	if d := cmp.Diff(wantSchema, got); d != "" {
		t.Error(d)
	}
	if len(fs) != 0 {
		t.Errorf("named form: findings %v; want none", fs)
	}

	for _, src := range []string{ag("", ""), agentHead + "    t: {description: d, topic: t, parameters: {}}\n"} {
		tpl, _ = mustAgents(t, src)
		empty := map[string]any{"type": "object", "properties": map[string]any{}}
		if d := cmp.Diff(empty, tpl.Agents["a"].Tools["t"].Parameters); d != "" {
			t.Errorf("no parameters: %s", d)
		}
	}
}

func TestParseAgentsFull(t *testing.T) {
	src := tool("description: d", "topic: read", "parameters: {type: object, properties: {x: {type: number}}}")
	tpl, fs := mustAgents(t, strings.Replace(src, "  main: true\n", "  main: true\n  data_access: true\n", 1))
	if len(fs) != 0 {
		t.Errorf("findings: %v", fs)
	}
	if d := cmp.Diff([]string{"a", "b"}, tpl.Names()); d != "" {
		t.Error(d)
	}
	if tpl.Main != "a" || tpl.MainAgent() != tpl.Agents["a"] {
		t.Errorf("Main = %q", tpl.Main)
	}
	a := tpl.Agents["a"]
	wantA := &Agent{
		Name: "a", SystemPrompt: "You help.", MaxContextTokens: 2048, MessagesAfterSummary: 10, MaxIterations: 5,
		Main: true, DataAccess: true,
		Tools: map[string]*Tool{"t": {Name: "t", Description: "d", Topic: "read", Parameters: map[string]any{
			"type": "object", "properties": map[string]any{"x": map[string]any{"type": "number"}},
		}, ParameterNames: []string{"x"}, Pos: Position{9, 5}, ParameterPositions: map[string]Position{
			"": {12, 19}, "/type": {12, 20}, "/properties": {12, 34}, "/properties/x": {12, 47}, "/properties/x/type": {12, 51},
		}}},
	}
	if d := cmp.Diff(wantA, a); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]string{"s"}, tpl.Agents["b"].ToolNames()); d != "" {
		t.Error(d)
	}
}
