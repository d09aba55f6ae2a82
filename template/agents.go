package template

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// AgentTemplate is a parsed and validated .ironflock/ai-template.yml
// (package template).
type AgentTemplate struct {
	// Agents maps agent name to agent; there is at least one.
	Agents map[string]*Agent
	// Main is the name of the one agent with main: true.
	Main string
}

// Agent is one agent of the agent template.
type Agent struct {
	// Name is the agent's key in the template.
	Name string
	// SystemPrompt is the agent's instructions (at most 25000 characters).
	SystemPrompt string
	// Tools maps tool name to tool; there is at least one.
	Tools map[string]*Tool
	// MaxContextTokens is the context budget, 1024 to 200000.
	MaxContextTokens int
	// MessagesAfterSummary is how many messages are kept after the history
	// is summarised, 1 to 1000.
	MessagesAfterSummary int
	// MaxIterations bounds the tool-call rounds of one request, 1 to 1000.
	MaxIterations int
	// ToolDescription describes the agent to others (at most 2000
	// characters); meaningful on the main agent.
	ToolDescription string
	// Main marks the entry agent; exactly one agent has it.
	Main bool
	// DataAccess enables the built-in tool that reads the app's tables.
	DataAccess bool
	// FileAccess enables the built-in tool that reads the app's files.
	FileAccess bool
	// LogAccess enables the built-in tool that reads the app's logs.
	LogAccess bool
	// WebSearch enables the built-in web search tool.
	WebSearch bool
	// Effort is EffortLow, EffortMedium, EffortHigh or "" when unset.
	Effort string
}

// Tool is one tool of an agent: a device function (Topic) or a hand-over
// to another agent (Delegate); exactly one of the two is set.
type Tool struct {
	// Name is the tool's key in the agent's tools.
	Name string
	// Description tells the model what the tool does (at most 1000
	// characters).
	Description string
	// Topic is the procedure name passed to RegisterDeviceFunction.
	Topic string
	// Delegate names the agent that handles the call.
	Delegate string
	// Parameters is the JSON Schema object of the arguments, normalised:
	// "type" is "object" and "properties" is present; the named
	// name: {type, description, required} form is converted. Maps are
	// map[string]any, lists []any, integers int64, other numbers float64.
	// The platform adds a required integer device_key to topic tools; it
	// is not part of Parameters.
	Parameters map[string]any
	// ParameterNames lists the names of Parameters' properties in the
	// order the file writes them: the order of arguments passed as
	// positional values.
	ParameterNames []string
	// Pos is where the tool's name stands in the file.
	Pos Position
	// ParameterPositions maps JSON Pointers into Parameters
	// ("/properties/city") to where the file writes them; see
	// ParameterPosition.
	ParameterPositions map[string]Position
}

// Effort levels of an agent.
const (
	// EffortLow is the value "low" of an agent's effort key.
	EffortLow = "low"
	// EffortMedium is the value "medium".
	EffortMedium = "medium"
	// EffortHigh is the value "high".
	EffortHigh = "high"
)

// Limits of the agent template (package template).
const (
	maxSystemPrompt    = 25000
	maxToolDescription = 2000
	maxToolDesc        = 1000
)

// ParseAgents parses and validates an agent template. It returns every
// finding in document order. When any finding has SeverityError the
// template is nil and err is an *Error holding the findings; warnings alone
// do not fail.
func ParseAgents(src []byte) (*AgentTemplate, []Finding, error) {
	c := &checker{file: AgentTemplateFile}
	t := c.agentTemplate(src)
	fs := c.sorted()
	if hasErrors(fs) {
		return nil, fs, &Error{File: c.file, Findings: fs}
	}
	return t, fs, nil
}

// Names returns the agent names, sorted.
func (t *AgentTemplate) Names() []string {
	names := make([]string, 0, len(t.Agents))
	for n := range t.Agents {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// MainAgent returns the agent with main: true.
func (t *AgentTemplate) MainAgent() *Agent {
	return t.Agents[t.Main]
}

// ToolNames returns the agent's tool names, sorted.
func (a *Agent) ToolNames() []string {
	names := make([]string, 0, len(a.Tools))
	for n := range a.Tools {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

var (
	topicPattern    = regexp.MustCompile(`^[a-zA-Z0-9_]+(\.[a-zA-Z0-9_]+)*$`)
	toolNamePattern = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	efforts         = []string{EffortLow, EffortMedium, EffortHigh}
	agentKeys       = []string{"system_prompt", "tools", "max_context_tokens", "messages_after_summary", "max_iterations",
		"tool_description", "main", "data_access", "file_access", "log_access", "web_search", "effort"}
	toolKeys = []string{"description", "topic", "delegate", "parameters"}
)

// agentTemplate walks the whole document.
func (c *checker) agentTemplate(src []byte) *AgentTemplate {
	root := c.parseDocument(src)
	if root == nil {
		if !hasErrors(c.findings) {
			c.errorf(&yaml.Node{Line: 1, Column: 1}, "", "empty template; an agent template maps agent names to agents, one of them with main: true")
		}
		return nil
	}
	m := c.mapping(root, "", "a mapping of agent name to agent")
	if m == nil {
		return nil
	}
	if len(m.keys) == 0 {
		c.errorf(m.node, "", "declares no agent; at least one agent is required, one of them with main: true")
		return nil
	}
	t := &AgentTemplate{Agents: map[string]*Agent{}}
	var mainNode *yaml.Node
	allRead := true
	for _, name := range m.keys {
		a, mainAt := c.agent(m.fields[name].value, keyPath("", name), name, m.keys)
		if a == nil {
			allRead = false
			continue
		}
		if a.Main {
			if mainNode != nil {
				c.errorf(mainAt, keyPath(keyPath("", name), "main"), "agent %q is main as well as %q (line %d); exactly one agent may have main: true", name, t.Main, mainNode.Line)
			} else {
				t.Main, mainNode = name, mainAt
			}
		}
		t.Agents[name] = a
	}
	if mainNode == nil && allRead {
		c.errorf(m.node, "", "no agent has main: true; mark exactly one agent as the main agent")
	}
	return t
}

// agent walks one agent; agents lists every agent name for delegates. It
// returns the node of its main key when set.
func (c *checker) agent(n *yaml.Node, path, name string, agents []string) (*Agent, *yaml.Node) {
	m := c.mapping(n, path, "an agent mapping with system_prompt, tools, max_context_tokens, messages_after_summary and max_iterations")
	if m == nil {
		return nil, nil
	}
	c.unknownKeys(m, agentKeys)
	a := &Agent{Name: name, Tools: map[string]*Tool{}}
	if v := c.required(m, "system_prompt", "the agent's instructions"); v != nil {
		a.SystemPrompt = c.longText(v, keyPath(path, "system_prompt"), maxSystemPrompt, true)
	}
	if v := c.required(m, "tools", "a mapping of tool name to {description, topic or delegate, parameters}"); v != nil {
		c.tools(v, keyPath(path, "tools"), a, agents)
	}
	a.MaxContextTokens = c.intRange(m, "max_context_tokens", 1024, 200000)
	a.MessagesAfterSummary = c.intRange(m, "messages_after_summary", 1, 1000)
	a.MaxIterations = c.intRange(m, "max_iterations", 1, 1000)
	if v := m.value("tool_description"); v != nil {
		a.ToolDescription = c.longText(v, keyPath(path, "tool_description"), maxToolDescription, false)
	}
	c.optBool(m, "main", &a.Main)
	c.optBool(m, "data_access", &a.DataAccess)
	c.optBool(m, "file_access", &a.FileAccess)
	c.optBool(m, "log_access", &a.LogAccess)
	c.optBool(m, "web_search", &a.WebSearch)
	if v := m.value("effort"); v != nil {
		p := keyPath(path, "effort")
		if s, ok := c.text(v, p); ok {
			if slices.Contains(efforts, s) {
				a.Effort = s
			} else {
				c.errorf(v, p, "unknown effort %q; allowed: %s", s, strings.Join(efforts, ", "))
			}
		}
	}
	return a, m.at("main")
}

// longText reads a text of at most limit characters; nonEmpty rejects
// blank text.
func (c *checker) longText(n *yaml.Node, path string, limit int, nonEmpty bool) string {
	s, ok := c.text(n, path)
	if !ok {
		return ""
	}
	if nonEmpty && strings.TrimSpace(s) == "" {
		c.errorf(n, path, "is empty; write the text")
	}
	if l := utf8.RuneCountInString(s); l > limit {
		c.errorf(n, path, "is %d characters long; allowed: at most %d", l, limit)
	}
	return s
}

// intRange reads a required integer key within [lo, hi].
func (c *checker) intRange(m *mapping, key string, lo, hi int64) int {
	v := c.required(m, key, "allowed: "+strconv.FormatInt(lo, 10)+" to "+strconv.FormatInt(hi, 10))
	if v == nil {
		return 0
	}
	p := keyPath(m.path, key)
	i, ok := c.integer(v, p)
	if !ok {
		return 0
	}
	if i < lo || i > hi {
		c.errorf(v, p, "%s %d is out of range; allowed: %d to %d", key, i, lo, hi)
		return 0
	}
	return int(i)
}

// tools walks an agent's tools mapping.
func (c *checker) tools(n *yaml.Node, path string, a *Agent, agents []string) {
	m := c.mapping(n, path, "a mapping of tool name to tool")
	if m == nil {
		return
	}
	if len(m.keys) == 0 {
		c.errorf(m.node, path, "declares no tool; allowed: at least one")
		return
	}
	for _, name := range m.keys {
		p := keyPath(path, name)
		if !toolNamePattern.MatchString(name) {
			c.warnf(m.fields[name].key, p, "tool name %q may be refused by models; use 1 to 64 letters, digits, _ and -", name)
		}
		if t := c.tool(m.fields[name].value, p, name, a.Name, agents); t != nil {
			t.Pos = positionOf(m.fields[name].key)
			a.Tools[name] = t
		}
	}
}

// tool walks one tool.
func (c *checker) tool(n *yaml.Node, path, name, agent string, agents []string) *Tool {
	m := c.mapping(n, path, "a tool mapping with description and topic or delegate")
	if m == nil {
		return nil
	}
	c.unknownKeys(m, toolKeys)
	t := &Tool{Name: name}
	if v := c.required(m, "description", "tell the model what the tool does"); v != nil {
		t.Description = c.longText(v, keyPath(path, "description"), maxToolDesc, true)
	}
	topic, delegate := m.value("topic"), m.value("delegate")
	switch {
	case topic != nil && delegate != nil:
		c.errorf(delegate, keyPath(path, "delegate"), "a tool has either topic (a device function) or delegate (another agent), not both")
	case topic == nil && delegate == nil:
		c.errorf(m.node, path, "a tool needs topic (the name passed to RegisterDeviceFunction) or delegate (another agent of this file)")
	case topic != nil:
		p := keyPath(path, "topic")
		if s, ok := c.text(topic, p); ok {
			if topicPattern.MatchString(s) {
				t.Topic = s
			} else {
				c.errorf(topic, p, "invalid topic %q; allowed: dot-separated parts of letters, digits and _ (^[a-zA-Z0-9_]+(\\.[a-zA-Z0-9_]+)*$)", s)
			}
		}
	default:
		p := keyPath(path, "delegate")
		if s, ok := c.text(delegate, p); ok {
			switch {
			case s == agent:
				c.errorf(delegate, p, "agent %q cannot delegate to itself; allowed: another agent of this file (%s)", s, others(agents, agent))
			case !slices.Contains(agents, s):
				c.errorf(delegate, p, "unknown agent %q; allowed: another agent of this file (%s)", s, others(agents, agent))
			default:
				t.Delegate = s
			}
		}
	}
	var named bool
	t.Parameters, named = c.parameters(m.value("parameters"), keyPath(path, "parameters"), topic != nil)
	t.paramLayout(m.value("parameters"), t.Parameters, named)
	return t
}

// others lists the agent names other than self, for messages.
func others(agents []string, self string) string {
	var o []string
	for _, a := range agents {
		if a != self {
			o = append(o, a)
		}
	}
	if len(o) == 0 {
		return "there is none"
	}
	return strings.Join(o, ", ")
}
