// This file is the facade of the agent runtime (package internal/agents,
// attached to every realm as a service): apps with an agent template
// (AddAppWithAgents), invoking one tool on a device as the platform's AI
// agents do (CallTool, in a chosen argument convention), scripted agent
// runs in place of a language model (RunAgent: delegate chains,
// max_iterations), and the record of tool calls with their answers
// (ToolCalls). It serves no URI: the runtime is a caller of device
// functions. Misuse (an unknown agent or tool, a script that ends too
// early) fails the test as provisioning mistakes do.

package platformtest

import (
	"context"
	"errors"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/agents"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// AddAppWithAgents adds an app like AddApp, with its agent template
// (.ironflock/ai-template.yml, YAML) beside its data template: both are
// stored as given in the app's READY release 1.0.0, and an invalid one
// fails the call with the validator's message. The runtime calls the
// tools of an installation's release (CallTool, RunAgent). AddApp is
// AddAppWithAgents without agents. Options: Key.
func (p *Platform) AddAppWithAgents(name, dataTemplateYAML, agentTemplateYAML string, opts ...ProvisionOption) *App {
	if p.tb != nil {
		p.tb.Helper()
	}
	var m *registry.App
	p.provision(func(s *registry.State) (err error) {
		m, err = s.AddApp(name, dataTemplateYAML, agentTemplateYAML, specOf(opts))
		return err
	})
	return p.app(m)
}

// AgentTemplate returns the agent template YAML as given, possibly "". A
// release built over the management API that becomes READY replaces it
// with its own.
func (a *App) AgentTemplate() string {
	var t string
	a.p.reg.View(func(*registry.State) { t = a.m.AITemplate })
	return t
}

// ArgConvention is how the agent runtime passes a tool's arguments. The
// platform does not publish its convention, so a tool must accept all
// three (docs/wire.md §7.14).
type ArgConvention int

// The argument conventions.
const (
	// KeywordArgs sends args [] and kwargs {name: value, …} (the default).
	KeywordArgs ArgConvention = ArgConvention(agents.Keyword)
	// ObjectArg sends one positional object: args [{name: value, …}].
	ObjectArg ArgConvention = ArgConvention(agents.Object)
	// PositionalArgs sends the values in the template's parameter order:
	// args [v1, v2, …], null for an absent parameter before a present one.
	PositionalArgs ArgConvention = ArgConvention(agents.Positional)
)

// String returns "keyword", "object" or "positional".
func (c ArgConvention) String() string { return agents.Convention(c).String() }

// ToolOption adjusts one CallTool or RunAgent.
type ToolOption func(*toolSettings)

type toolSettings struct {
	conv ArgConvention
	keep bool
}

// Convention sets how the arguments travel (default KeywordArgs).
func Convention(c ArgConvention) ToolOption { return func(s *toolSettings) { s.conv = c } }

// KeepDeviceKey sends device_key along with the arguments (keyword and
// object conventions), where the platform strips it: a handler must
// ignore it.
func KeepDeviceKey() ToolOption { return func(s *toolSettings) { s.keep = true } }

// ToolCall is one tool call of the agent runtime and its answer, as
// recorded.
type ToolCall struct {
	Time      time.Time // platform time of the answer
	Realm     string
	Agent     string
	Tool      string
	Topic     string // the device function's name; "" for a delegate tool
	Delegate  string // the agent a delegate tool hands over to
	Procedure string // <SWARM>.<device_key>.<APP>.<STAGE>.<topic>; "" for a delegate tool
	DeviceKey int    // the device called; 0 for a delegate tool
	// Convention is how the arguments were sent.
	Convention ArgConvention
	// Arguments are the arguments as the model wrote them, as JSON values
	// (integers int64), with the device_key of the device called (none
	// for a delegate tool).
	Arguments map[string]any
	// Args and Kwargs are the payload as sent.
	Args   []any
	Kwargs map[string]any
	// Result is what the model reads on success: the single result value,
	// the list of several, the keyword results, or {"args", "kwargs"}
	// when both came; nil without any. For a delegate tool: the answer of
	// the agent it handed over to.
	Result any
	// Error is the error URI when the call failed, "" on success. A
	// delegate tool fails with "max_iterations" (or "max_delegation")
	// when the agent it handed over to did not answer.
	Error string
	// Message is the error's text, as the model reads it.
	Message string
	// Depth is 0 for calls of the agent a run starts with (and of
	// CallTool), 1 for those of an agent it delegated to, and so on.
	Depth int
}

// ToolError is the error of CallTool when the tool did not answer with a
// result: the device refused the call (wamp.error.invalid_argument for
// invalid arguments, wamp.error.no_such_procedure when no device serves
// the tool, …). Match it with errors.As.
type ToolError struct {
	URI     string // the error URI
	Message string // its text, as the model reads it
}

// Error returns the URI and the text.
func (e *ToolError) Error() string { return "tool call failed: " + e.URI + ": " + e.Message }

// CallTool invokes a topic tool of agent (of the app's agent template; ""
// means the main agent) on the device of target, as the platform's agent
// runtime does: it adds the integer device_key (args may carry
// device_key to pick another device of the project), calls
// <SWARM>.<device_key>.<APP>.<STAGE>.<topic> in target's realm through
// the platform's own session, in the convention of the options (default
// KeywordArgs), and records the call. args are the arguments as a model
// writes them: a JSON object.
//
// A refusal is a *ToolError; the ToolCall holds the answer either way.
// When ctx ends first, the error is ctx's. An unknown agent or tool, a
// delegate tool, arguments that are not JSON or an app without agent
// template fail the test (a platform made by Start panics).
func (p *Platform) CallTool(ctx context.Context, target *Installation, agent, tool string, args map[string]any, opts ...ToolOption) (ToolCall, error) {
	if p.tb != nil {
		p.tb.Helper()
	}
	req, err := p.agentRequest(target, opts)
	if err != nil {
		p.fail(err)
		return ToolCall{}, err
	}
	req.Agent, req.Tool, req.Arguments = agent, tool, args
	c, err := p.agents.Invoke(ctx, req)
	if err != nil {
		p.fail(err)
		return ToolCall{}, err
	}
	tc := toolCall(c)
	switch {
	case ctx.Err() != nil:
		return tc, ctx.Err()
	case tc.Error != "":
		return tc, &ToolError{URI: tc.Error, Message: tc.Message}
	}
	return tc, nil
}

// Turn is one step of an agent in a scripted run: a call of a tool (a
// topic tool on a device, or a delegate tool handing over to another
// agent) or, with Tool "", the agent's final answer. Make them with
// UseTool and Answer.
type Turn struct {
	Tool   string
	Args   map[string]any // the arguments as the model writes them; device_key picks the device
	Answer string
}

// UseTool is the turn that calls tool with args.
func UseTool(tool string, args map[string]any) Turn { return Turn{Tool: tool, Args: args} }

// Answer is the turn that ends an agent's activation with text.
func Answer(text string) Turn { return Turn{Answer: text} }

// Script holds each agent's turns, by agent name, in the order the agent
// takes them: a language model's choices, written by a test.
type Script map[string][]Turn

// AgentRun is the outcome of RunAgent.
type AgentRun struct {
	Agent string // the agent the run started with
	// Answer is its final answer; "" when it was stopped.
	Answer string
	// Stopped says why the agent gave no answer (it reached its
	// max_iterations); "" when it answered.
	Stopped string
	// Calls are the run's tool calls in the order they were answered: a
	// delegate's calls come before the delegate call.
	Calls []ToolCall
}

// RunAgent plays agent ("" means the main agent) of target's app with the
// turns of script in place of a language model. Each turn of the agent
// calls one of its tools — a topic tool on target's device (or the
// device its device_key names), or a delegate tool, whose agent then
// takes its own turns until it answers; its answer is the delegate
// tool's result — or answers. An agent makes at most its max_iterations
// tool calls per activation: a further tool turn stops it without an
// answer (its turns up to its next answer are dropped); a delegate tool
// whose agent was stopped fails with "max_iterations", and the agent the
// run starts with ends with AgentRun.Stopped set. Every call is recorded.
//
// The error is ctx's when it ends first. An unknown agent or tool, an
// agent without a turn left, or an app without agent template fail the
// test (a platform made by Start panics).
func (p *Platform) RunAgent(ctx context.Context, target *Installation, agent string, script Script, opts ...ToolOption) (AgentRun, error) {
	if p.tb != nil {
		p.tb.Helper()
	}
	req, err := p.agentRequest(target, opts)
	if err != nil {
		p.fail(err)
		return AgentRun{}, err
	}
	turns := make(map[string][]agents.Turn, len(script))
	for name, ts := range script {
		for _, t := range ts {
			turns[name] = append(turns[name], agents.Turn{Tool: t.Tool, Arguments: t.Args, Answer: t.Answer})
		}
	}
	r, err := p.agents.Run(ctx, agents.RunRequest{Realm: req.Realm, Template: req.Template, Agent: agent, DeviceKey: req.DeviceKey,
		Convention: req.Convention, KeepDeviceKey: req.KeepDeviceKey, Script: turns})
	run := AgentRun{Agent: r.Agent, Answer: r.Answer, Stopped: r.Stopped}
	for _, c := range r.Calls {
		run.Calls = append(run.Calls, toolCall(c))
	}
	if err != nil && ctx.Err() == nil {
		p.fail(err)
	}
	return run, err
}

// ToolCalls returns every tool call of the agent runtime (CallTool,
// RunAgent and flockd's tool route) with its answer, in the order they
// were answered; the newest 10000 are kept.
func (p *Platform) ToolCalls() []ToolCall {
	in := p.agents.Calls()
	out := make([]ToolCall, len(in))
	for i, c := range in {
		out[i] = toolCall(c)
	}
	return out
}

// ClearToolCalls forgets the recorded tool calls.
func (p *Platform) ClearToolCalls() { p.agents.ClearCalls() }

// agentRequest resolves target into the realm, device and agent template
// of a request, with the settings of opts.
func (p *Platform) agentRequest(target *Installation, opts []ToolOption) (agents.Request, error) {
	var set toolSettings
	for _, o := range opts {
		o(&set)
	}
	req := agents.Request{Convention: agents.Convention(set.conv), KeepDeviceKey: set.keep}
	if target == nil {
		return req, errors.New("agent runtime: no target installation")
	}
	p.reg.View(func(s *registry.State) {
		req.Realm, _ = s.Realm(target.m.Realm)
		req.Template = target.m.AgentTemplate()
		req.DeviceKey = target.m.Device.Key
	})
	return req, nil
}

// toolCall converts a call of the runtime.
func toolCall(c agents.Call) ToolCall {
	return ToolCall{Time: c.Time, Realm: c.Realm, Agent: c.Agent, Tool: c.Tool, Topic: c.Topic, Delegate: c.Delegate,
		Procedure: c.Procedure, DeviceKey: c.DeviceKey, Convention: ArgConvention(c.Convention), Arguments: c.Arguments,
		Args: c.Args, Kwargs: c.Kwargs, Result: c.Result, Error: c.Error, Message: c.Message, Depth: c.Depth}
}
