// Package agent serves the tools of an app's agent template
// (.ironflock/ai-template.yml) as device functions, so that the
// platform's AI agents can call them: every tool with a topic is a device
// function of that name, which the platform's agent runtime calls at
// <SWARM>.<device_key>.<APP>.<STAGE>.<topic> on the device the model
// chose.
//
//	tpl, err := agent.LoadDefault() // or agent.Load(dir), agent.Parse(src)
//	…
//	svc, err := agent.Serve(ctx, c, tpl,
//		agent.Typed("read_temperature", readTemperature), // func(ctx, Args) (Result, error)
//		agent.Untyped("query", query),                    // func(ctx, map[string]any) (any, error)
//	)
//
// # Typed tools, checked at Serve
//
// A typed tool is a Go function over a struct whose fields are the tool's
// parameters by their json names. Before anything registers, Serve checks
// that every topic tool of the template has exactly one Go tool and the
// reverse, and that each struct agrees with the tool's JSON Schema: every
// parameter has a field and every field a parameter, the types fit (a
// string parameter takes string, time.Time, []byte or a TextUnmarshaler;
// an integer any integer or float type; a number a float; an object a
// struct or a map; an array a slice; any takes anything; nested objects
// and array items are checked too), and a parameter is required exactly
// when its field is not optional — a field is optional when it is a
// pointer or tagged omitempty or omitzero. Every mismatch is reported at
// once in a *BindError, each at the file, line and column that package
// template gives, in the form compilers use.
//
// # Invocations
//
// The platform does not publish how its agent runtime passes arguments,
// so a tool accepts all three conventions: keyword arguments, one
// positional object, or positional values in the template's parameter
// order (null meaning absent). The platform adds a required integer
// device_key to every topic tool to route the call and strips it; should
// it arrive anyway it is dropped. The arguments are validated against the
// tool's JSON Schema (santhosh-tekuri/jsonschema, formats asserted) before
// the Go function runs; invalid ones are refused with
// wamp.error.invalid_argument and a short text the model can act on:
//
//	invalid arguments: missing required parameter "city" (a string: The city to look up); parameter "days": maximum: got 9, want 7
//
// Results and error texts go to the model verbatim, so keep them small:
// a result whose JSON encoding is over the tool's MaxResultBytes (default
// 64 KiB) is not sent; the caller gets wamp.error.runtime_error saying so.
// InvalidArgument is the refusal a tool returns for arguments that are
// well-formed but unusable.
//
// Registrations are the client's device functions: restored after every
// reconnect, taken over from a previous session of the device.
//
// # Choices where the platform is silent
//
//   - One device function has one signature: tools of several agents may
//     share a topic only with equal parameters.
//   - A single positional value that is an object is the argument object,
//     unless the first parameter takes an object and the value has a key
//     that is no parameter: then it is that parameter's value.
//   - Positional values and keyword arguments may come together: the
//     values fill the parameters in order, a parameter given both ways is
//     refused.
//   - LoadDefault looks for the template in the working directory, then in
//     /app (DefaultDirs).
//
// In tests, package platformtest plays the platform's agent runtime:
// CallTool invokes a tool in a chosen convention, RunAgent plays scripted
// agents through delegate chains.
package agent
