// This file holds the errors of the agent runtime: misuse of a request
// (an agent, tool or template that is not there, arguments that are not
// JSON, a script that ends too early), which the facade turns into a
// failed test and the REST API into 404 or 422. A tool's own refusal is
// no error: it is the answer the model reads (Call.Error, Call.Message).

package agents

import "errors"

// Misuse of a request, matched with errors.Is.
var (
	// ErrNoTemplate: the app has no agent template (404).
	ErrNoTemplate = errors.New("the app has no agent template")
	// ErrUnknownAgent: no agent of that name (404).
	ErrUnknownAgent = errors.New("unknown agent")
	// ErrUnknownTool: the agent has no tool of that name (404).
	ErrUnknownTool = errors.New("unknown tool")
	// ErrDelegate: a delegate tool was invoked as a device function; only
	// Run follows delegates (422).
	ErrDelegate = errors.New("a delegate tool calls no device")
	// ErrArguments: the arguments are not a JSON object, or device_key is
	// not a positive integer (422).
	ErrArguments = errors.New("invalid tool arguments")
	// ErrScript: a scripted agent has no turn left, or a turn is empty
	// (422).
	ErrScript = errors.New("invalid agent script")
)
