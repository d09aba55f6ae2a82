// This file holds NewEndContext: a context for an owner's life that costs
// less than context.WithCancel to derive from.

package engine

import "context"

// afterEnd is context.AfterFunc, which asks a context with an AfterFunc
// method of its own (NewEndContext's) directly, as the context package
// does for the contexts it derives from one, without an afterFuncCtx.
func afterEnd(ctx context.Context, f func()) (stop func() bool) {
	if a, ok := ctx.(interface{ AfterFunc(func()) func() bool }); ok {
		return a.AfterFunc(f)
	}
	return context.AfterFunc(ctx, f)
}

// NewEndContext returns a context without values or deadline that ends
// with context.Canceled when end is called, as context.WithCancel of
// context.Background does. It makes its Done channel only when asked for
// it, and what waits for its end (context.AfterFunc, a context derived
// from it, a Queue) costs an entry in a slice, not a place in a map of
// children with that channel: a client that lives long and idle (one of
// thousands in a process) holds a few bytes for it.
func NewEndContext() (ctx context.Context, end func()) {
	c := &invocationCtx{base: true}
	return c, func() { c.end(context.Canceled) }
}
