// This file holds Tool, the Go side of one topic tool: typed (a function
// over a struct, Typed) or untyped (a map in, any value out, Untyped), and
// its options.

package agent

import (
	"context"
	"reflect"

	"github.com/flockgo/ironflock/client"
)

// DefaultMaxResultBytes bounds the JSON encoding of a tool's result unless
// MaxResultBytes says otherwise: the platform hands results to the model
// verbatim, so they should be small.
const DefaultMaxResultBytes = 64 << 10

// Tool is the Go function serving one topic tool of the agent template.
// Make one with Typed or Untyped and hand it to Serve.
type Tool struct {
	topic     string
	args      reflect.Type // the argument struct of a typed tool; nil when untyped
	call      func(ctx context.Context, args map[string]any) (any, error)
	maxResult int
	hooks     []HookTool // WithHooks
}

// Topic returns the topic the tool serves: the name it is registered
// under, as the template's topic key writes it.
func (t Tool) Topic() string { return t.topic }

// ToolOption configures one tool.
type ToolOption func(*Tool)

// MaxResultBytes bounds the JSON encoding of the tool's results: a larger
// result is not sent, and the caller gets wamp.error.runtime_error with a
// text saying how large it was. n ≤ 0 means DefaultMaxResultBytes.
func MaxResultBytes(n int) ToolOption {
	return func(t *Tool) {
		if n <= 0 {
			n = DefaultMaxResultBytes
		}
		t.maxResult = n
	}
}

// Typed makes a tool of fn for the template's topic tool topic. The
// arguments arrive decoded into A, a struct whose fields are the tool's
// parameters by their json names; Serve checks that A agrees with the
// template's parameters (names, types, which are required) and every
// invocation is validated against the template's JSON Schema before fn
// runs. A field is optional when it is a pointer or tagged omitempty (or
// omitzero); every other field must be a required parameter. The result
// is sent as the single result value, encoded like every value of package
// client; an error answers the call (a *client.WampError with its URI,
// any other error wamp.error.runtime_error with its text; see
// InvalidArgument).
func Typed[A, R any](topic string, fn func(ctx context.Context, args A) (R, error), opts ...ToolOption) Tool {
	t := Tool{topic: topic, args: reflect.TypeFor[A](), maxResult: DefaultMaxResultBytes}
	if fn != nil {
		t.call = func(ctx context.Context, m map[string]any) (any, error) {
			var a A
			if err := client.DecodeInto(m, &a); err != nil {
				return nil, InvalidArgument("invalid arguments: %v", err)
			}
			return fn(ctx, a)
		}
	}
	for _, o := range opts {
		o(&t)
	}
	return t
}

// Untyped makes a tool of fn for the template's topic tool topic, for
// dynamic cases: fn gets the arguments as a map (device_key stripped,
// validated against the template's JSON Schema) and its result is sent
// like a typed tool's.
func Untyped(topic string, fn func(ctx context.Context, args map[string]any) (any, error), opts ...ToolOption) Tool {
	t := Tool{topic: topic, call: fn, maxResult: DefaultMaxResultBytes}
	for _, o := range opts {
		o(&t)
	}
	return t
}
