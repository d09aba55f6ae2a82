// This file calls one topic tool on a device, as the platform's agent
// runtime does (docs/wire.md §7.14): the model's device_key picks the
// device, the procedure is <SWARM>.<device_key>.<APP>.<STAGE>.<topic>, the
// arguments travel in the chosen convention without device_key, and the
// answer is what the model reads: the result, or the error URI and its
// text.

package agents

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	nexusclient "github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// Convention is how the runtime passes a tool's arguments.
type Convention int

// The three argument conventions a tool must accept (package template: the agent template).
const (
	// Keyword passes the arguments as keyword arguments: args [], kwargs
	// {name: value}.
	Keyword Convention = iota
	// Object passes them as one positional object: args [{name: value}].
	Object
	// Positional passes the values in the template's parameter order: args
	// [v1, v2, …], null for an absent parameter before a present one.
	Positional
)

// Conventions lists the conventions by their names.
var Conventions = []string{"keyword", "object", "positional"}

// String returns "keyword", "object" or "positional".
func (c Convention) String() string {
	if c >= 0 && int(c) < len(Conventions) {
		return Conventions[c]
	}
	return fmt.Sprintf("Convention(%d)", int(c))
}

// ParseConvention reads a convention's name.
func ParseConvention(s string) (Convention, bool) {
	for i, n := range Conventions {
		if n == s {
			return Convention(i), true
		}
	}
	return 0, false
}

// Request asks for one tool call.
type Request struct {
	Realm    realm.Info // the app's realm in the stage of the call
	Template string     // the app's agent template (YAML)
	Agent    string     // "" means the main agent
	Tool     string
	// DeviceKey is the device called unless Arguments carry device_key.
	DeviceKey int
	// Arguments are the arguments as the model writes them (a JSON
	// object); device_key, when present, picks the device.
	Arguments  map[string]any
	Convention Convention
	// KeepDeviceKey sends device_key along with the arguments (keyword
	// and object conventions), where the platform strips it: a handler
	// must ignore it.
	KeepDeviceKey bool
}

// Call is one tool call of the runtime and its answer.
type Call struct {
	Time      time.Time // platform time of the answer
	Realm     string
	Agent     string
	Tool      string
	Topic     string // the device function's name; "" for a delegate tool
	Delegate  string // the agent a delegate tool hands over to
	Procedure string // the URI called; "" for a delegate tool
	DeviceKey int    // the device called; 0 for a delegate tool
	// Convention is how the arguments were sent.
	Convention Convention
	// Arguments are the arguments as the model wrote them, as JSON values
	// (integers int64), with the device_key of the device called (none
	// for a delegate tool).
	Arguments map[string]any
	// Args and Kwargs are the payload as sent.
	Args   []any
	Kwargs map[string]any
	// Result is what the model reads when the call succeeded: the single
	// result value, the list of several, the keyword results, or
	// {"args", "kwargs"} when both came; nil without any.
	Result any
	// Error is the error URI when the call failed ("" on success); for a
	// delegate tool, "max_iterations" or "max_delegation" when the agent
	// it handed over to did not answer.
	Error string
	// Message is the error's text, as the model reads it.
	Message string
	// Depth is 0 for the calls of the agent a run starts with, 1 for
	// those of an agent it delegated to, and so on.
	Depth int
}

// clone returns a deep copy of c.
func (c Call) clone() Call {
	c.Arguments, _ = wirevalue.Clone(c.Arguments).(map[string]any)
	c.Args, _ = wirevalue.Clone(c.Args).([]any)
	c.Kwargs, _ = wirevalue.Clone(c.Kwargs).(map[string]any)
	c.Result = wirevalue.Clone(c.Result)
	return c
}

// Invoke calls one topic tool and records the call. The error reports a
// request that cannot be made (see the Err… sentinels); the tool's own
// refusal, an absent device and an ended ctx are answers, in Call.Error.
func (rt *Runtime) Invoke(ctx context.Context, req Request) (Call, error) {
	tpl, err := rt.template(req.Template)
	if err != nil {
		return Call{}, err
	}
	a, err := agentOf(tpl, req.Agent)
	if err != nil {
		return Call{}, err
	}
	tl, err := toolOf(a, req.Tool)
	if err != nil {
		return Call{}, err
	}
	if tl.Delegate != "" {
		return Call{}, fmt.Errorf("%w: tool %q of agent %q delegates to agent %q; call a topic tool, or run the agent", ErrDelegate, tl.Name, a.Name, tl.Delegate)
	}
	c, err := rt.callTopic(ctx, req, a, tl, req.Arguments)
	if err != nil {
		return Call{}, err
	}
	rt.remember(c)
	return c.clone(), nil
}

// agentOf returns the agent named name, the main one for "".
func agentOf(t *template.AgentTemplate, name string) (*template.Agent, error) {
	if name == "" {
		return t.MainAgent(), nil
	}
	if a := t.Agents[name]; a != nil {
		return a, nil
	}
	return nil, fmt.Errorf("%w %q; the agents are %s", ErrUnknownAgent, name, strings.Join(t.Names(), ", "))
}

// toolOf returns the tool named name of agent a.
func toolOf(a *template.Agent, name string) (*template.Tool, error) {
	if tl := a.Tools[name]; tl != nil {
		return tl, nil
	}
	return nil, fmt.Errorf("%w %q of agent %q; its tools are %s", ErrUnknownTool, name, a.Name, strings.Join(a.ToolNames(), ", "))
}

// callTopic calls topic tool tl of agent a with the model's arguments.
func (rt *Runtime) callTopic(ctx context.Context, req Request, a *template.Agent, tl *template.Tool, arguments map[string]any) (Call, error) {
	args, err := jsonObject(arguments)
	if err != nil {
		return Call{}, err
	}
	dk := req.DeviceKey
	if v, ok := args[deviceKey]; ok {
		n, ok := v.(int64)
		if !ok || n <= 0 || n > math.MaxInt32 {
			return Call{}, fmt.Errorf("%w: device_key is %v; want the positive integer key of a device", ErrArguments, v)
		}
		dk = int(n)
	}
	if dk <= 0 {
		return Call{}, fmt.Errorf("%w: no device_key: name the device the tool runs on", ErrArguments)
	}
	args[deviceKey] = int64(dk) // the model always writes it: the platform makes it required
	c := Call{
		Realm: req.Realm.Name, Agent: a.Name, Tool: tl.Name, Topic: tl.Topic, DeviceKey: dk,
		Procedure:  wire.DeviceFunction(req.Realm.Swarm, dk, req.Realm.App, req.Realm.Stage, tl.Topic),
		Convention: req.Convention, Arguments: args,
	}
	c.Args, c.Kwargs = payload(req.Convention, tl.ParameterNames, args, req.KeepDeviceKey)
	rt.send(ctx, &c)
	c.Time = rt.now()
	return c, nil
}

// deviceKey is the parameter the platform adds to every topic tool.
const deviceKey = "device_key"

// payload lays the arguments out in convention conv; device_key goes
// along only when keep is set (not in positional values).
func payload(conv Convention, order []string, args map[string]any, keep bool) ([]any, map[string]any) {
	obj := make(map[string]any, len(args))
	for k, v := range args {
		if k != deviceKey || keep {
			obj[k] = v
		}
	}
	switch conv {
	case Object:
		return []any{obj}, nil
	case Positional:
		last := -1
		for i, name := range order {
			if _, ok := args[name]; ok {
				last = i
			}
		}
		vals := make([]any, last+1)
		for i := range vals {
			vals[i] = args[order[i]]
		}
		return vals, nil
	}
	return []any{}, obj
}

// send makes the call and fills the answer into c.
func (rt *Runtime) send(ctx context.Context, c *Call) {
	h := rt.host(c.Realm)
	if h == nil || h.Session == nil {
		c.Error, c.Message = wire.ErrNoSuchRealm, "the realm "+c.Realm+" is not up"
		return
	}
	res, err := h.Session.Call(ctx, c.Procedure, nil, wamp.List(wirevalue.Clone(c.Args).([]any)), wamp.Dict(kwargsCopy(c.Kwargs)), nil)
	if err == nil {
		c.Result = answer(wirevalue.List(res.Arguments, false), wirevalue.Dict(res.ArgumentsKw, false))
		return
	}
	var rpc nexusclient.RPCError
	switch {
	case errors.As(err, &rpc) && rpc.Err != nil:
		c.Error = string(rpc.Err.Error)
		c.Message = errorText(wirevalue.List(rpc.Err.Arguments, false), wirevalue.Dict(rpc.Err.ArgumentsKw, false), c.Error)
	case ctx.Err() != nil:
		c.Error, c.Message = wire.ErrCanceled, ctx.Err().Error()
	case errors.Is(err, nexusclient.ErrNotConn):
		c.Error, c.Message = wire.ErrNoSuchRealm, "the realm "+c.Realm+" is not up"
	default:
		c.Error, c.Message = wire.ErrRuntimeError, err.Error()
	}
}

func kwargsCopy(kw map[string]any) map[string]any {
	if kw == nil {
		return nil
	}
	return wirevalue.Clone(kw).(map[string]any)
}

// answer is what the model reads of a result.
func answer(args []any, kwargs map[string]any) any {
	switch {
	case len(args) == 0 && len(kwargs) == 0:
		return nil
	case len(kwargs) == 0 && len(args) == 1:
		return args[0]
	case len(kwargs) == 0:
		return args
	case len(args) == 0:
		return kwargs
	}
	return map[string]any{"args": args, "kwargs": kwargs}
}

// errorText is what the model reads of an error: its first argument when
// that is text, else the payload as JSON, else the URI.
func errorText(args []any, kwargs map[string]any, uri string) string {
	if len(args) > 0 {
		if s, ok := args[0].(string); ok {
			return s
		}
	}
	if len(args) == 0 && len(kwargs) == 0 {
		return uri
	}
	b, err := json.Marshal(answer(args, kwargs))
	if err != nil {
		return uri
	}
	return string(b)
}

// jsonObject returns the arguments as a model writes them: JSON values,
// integers as int64 and other numbers as float64. A nil map is an empty
// object.
func jsonObject(args map[string]any) (map[string]any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArguments, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var out map[string]any
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArguments, err)
	}
	if out == nil {
		out = map[string]any{}
	}
	return numbers(out).(map[string]any), nil
}

// numbers turns json.Number values into int64 (when integral and in
// range) or float64.
func numbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = numbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = numbers(e)
		}
	}
	return v
}

// now returns platform time, or real time without a clock.
func (rt *Runtime) now() time.Time {
	if rt.clock != nil {
		return rt.clock.Now()
	}
	return time.Now()
}
