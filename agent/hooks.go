// This file holds the tools' observation hook (docs/observability.md):
// HookTool, told of every invocation of a tool with what the agent
// package adds to it: the validation of the arguments and the size check
// of the result. The client's hooks see the invocation itself.

package agent

import (
	"context"
	"time"
)

// HookTool is told of every invocation of a tool, once it was answered.
type HookTool interface {
	OnTool(ctx context.Context, c ToolCall)
}

// ToolCall describes one invocation of a tool.
type ToolCall struct {
	Topic string
	// Invalid is set when the arguments were refused before the tool ran
	// (wamp.error.invalid_argument).
	Invalid bool
	// Took is the whole serve: validation, the tool's run, the size check.
	Took time.Duration
	Err  error // nil on success
}

// WithHooks makes the tool tell the values among hooks that implement
// HookTool of each of its invocations (the others are ignored: they may
// be the client's hooks). Hooks run on the invocation's goroutine and
// must return quickly.
func WithHooks(hooks ...any) ToolOption {
	return func(t *Tool) {
		for _, h := range hooks {
			if x, ok := h.(HookTool); ok {
				t.hooks = append(t.hooks, x)
			}
		}
	}
}
