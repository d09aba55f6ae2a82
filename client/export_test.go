// This file gives the external tests of the package its test hooks.

package client

import (
	"context"
	"errors"
	"sync/atomic"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// setHook changes c's test hooks with set.
func setHook(c *Client, set func(*testHooks)) {
	h := &testHooks{}
	if old := c.test.Load(); old != nil {
		*h = *old
	}
	set(h)
	c.test.Store(h)
}

// OnSessionWait makes fn run whenever an operation of c starts waiting for
// a session.
func OnSessionWait(c *Client, fn func()) { setHook(c, func(h *testHooks) { h.waiting = fn }) }

// ErrCut is why CutNextSession ends a session.
var ErrCut = errors.New("session cut by the test")

// CutNextSession ends, once, the session the next operation of c is about
// to use: the link dies after the operation got its session and before it
// writes its request, so the request never leaves the client.
func CutNextSession(c *Client) {
	var done atomic.Bool
	setHook(c, func(h *testHooks) {
		h.using = func(s *engine.Session) {
			if done.CompareAndSwap(false, true) {
				s.Close(ErrCut)
			}
		}
	})
}

// PublishBare publishes as Publish did before the hooks and Stats (issue
// 36; commit 5ce8889): the arguments taken as Publish takes them, the
// session's acknowledged PUBLISH and its error, nothing else. It is the
// baseline that BenchmarkPublishSideBySide holds the no-hook path to.
func PublishBare(ctx context.Context, c *Client, topic string, args ...any) error {
	const op = "Publish"
	if err := checkTopic(op, topic, false); err != nil {
		return err
	}
	wargs, kwargs, err := splitArgs(op, topic, args, func(PublishOption) {})
	if err != nil {
		return err
	}
	wargs, kwargs = withMetadata(wargs, kwargs, c.metadata())
	s, err := c.waitSession(ctx, op, topic, c.set.sessionWait)
	if err != nil {
		return err
	}
	return opErr(op, topic, wampError(s.Publish(ctx, topic, wargs, kwargs)))
}
