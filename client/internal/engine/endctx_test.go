package engine

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// TestEndContext: NewEndContext's context behaves as context.WithCancel
// of Background for what derives from it: Done, Err, Cause, the contexts
// derived and AfterFunc end with it, and an idle Queue on it ends.
func TestEndContext(t *testing.T) {
	ctx, end := NewEndContext()
	if _, ok := ctx.Deadline(); ok || ctx.Err() != nil || ctx.Value("k") != nil {
		t.Fatal("a fresh end context has a deadline, an error or a value")
	}
	if got := fmt.Sprint(ctx); got != "context.Background.WithCancel" {
		t.Errorf("named %q", got)
	}
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	ran := make(chan struct{})
	context.AfterFunc(ctx, func() { close(ran) })
	stopped := context.AfterFunc(ctx, func() { t.Error("a stopped AfterFunc ran") })
	if !stopped() {
		t.Fatal("stop did not stop")
	}
	q := NewQueue(ctx, func(context.Context, int) {})
	done := ctx.Done()
	end()
	end() // a second end changes nothing
	<-done
	<-ran
	<-child.Done()
	<-q.Done()
	if !errors.Is(ctx.Err(), context.Canceled) || !errors.Is(context.Cause(child), context.Canceled) {
		t.Errorf("ended with %v, the child's cause %v", ctx.Err(), context.Cause(child))
	}
	late := make(chan struct{})
	context.AfterFunc(ctx, func() { close(late) })
	<-late
}
