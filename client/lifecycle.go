// This file holds the lifecycle of a Client: Start, OnStop, Stop and Run.

package client

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// Start connects and blocks until the app's realm is joined and every
// subscription and registration is restored. It waits through
// wamp.error.no_such_realm and through refused credentials (a rotated
// credential is picked up from the environment mirror on each attempt) until
// ctx ends, or until the credential has been refused for the whole grace
// (WithAuthFailureGrace; the error then matches ErrCredentialRefused); the
// connection then stays down and Start may be called again.
// After success the client reconnects by itself whenever the link drops.
func (c *Client) Start(ctx context.Context) error {
	const op = "Start"
	if c.set.realm == "" {
		if err := c.id.requireApp(op); err != nil {
			return err
		}
	}
	c.mu.Lock()
	switch {
	case c.stopped:
		c.mu.Unlock()
		return opErr(op, c.realm, ErrStopped)
	case c.started:
		c.mu.Unlock()
		return opErr(op, c.realm, ErrAlreadyStarted)
	}
	c.started = true
	c.supDone, c.connected = make(chan struct{}), make(chan struct{})
	c.final = make(chan struct{})
	connected, supDone := c.connected, c.supDone
	sv := c.newSupervisor(supDone)
	c.cancelSup = sv.stop
	c.setStateLocked(StateConnecting)
	c.mu.Unlock()

	go sv.run(nil)
	select {
	case <-connected:
		return nil
	case <-supDone: // the refusal of the credential is final
		c.mu.Lock()
		last := c.lastErr
		c.mu.Unlock()
		if c.isStopped() {
			return opErr(op, c.realm, ErrStopped)
		}
		return opErr(op, c.realm, last)
	case <-ctx.Done():
	case <-c.stopCh:
		return opErr(op, c.realm, ErrStopped)
	}
	sv.stop()
	<-supDone
	c.mu.Lock()
	last := c.lastErr
	if !c.stopped {
		c.started = false
		c.setStateLocked(StateIdle)
	}
	c.mu.Unlock()
	if last != nil {
		return opErr(op, c.realm, fmt.Errorf("%w (last attempt: %v)", ctx.Err(), last))
	}
	return opErr(op, c.realm, ctx.Err())
}

// OnStop registers fn to run when the client stops, before the connection
// closes; satellites use it to close what they own. It returns a function
// that removes the hook.
func (c *Client) OnStop(fn func(ctx context.Context)) (remove func()) {
	h := &stopHook{fn: fn}
	c.mu.Lock()
	c.hooks = append(c.hooks, h)
	c.mu.Unlock()
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		for i, x := range c.hooks {
			if x == h {
				c.hooks = append(c.hooks[:i], c.hooks[i+1:]...)
				return
			}
		}
	}
}

// Stop ends the client for good: the context Run gives its main function
// is canceled, operations waiting for a session or an answer fail with
// ErrStopped, stop hooks run (last registered first), the session says
// GOODBYE, the contexts of running handlers end, and every goroutine of the
// client ends. It is idempotent. ctx bounds the wait for the router's
// goodbye and for running handlers to return; Stop returns ctx's error if
// that bound was hit.
func (c *Client) Stop(ctx context.Context) error {
	c.mu.Lock()
	if c.stopped {
		c.mu.Unlock()
		return nil
	}
	c.stopped = true
	close(c.stopCh)
	hooks := append([]*stopHook(nil), c.hooks...)
	cancelSup, supDone := c.cancelSup, c.supDone
	c.mu.Unlock()

	for i := len(hooks) - 1; i >= 0; i-- {
		c.safely("stop hook", "", func() { hooks[i].fn(ctx) })
	}
	var err error
	if cancelSup != nil {
		cancelSup()
		select {
		case <-supDone:
		case <-ctx.Done():
			err = ctx.Err()
		}
	}
	if s := c.live.Swap(nil); s != nil {
		c.cur.CompareAndSwap(s, nil)
		err = errors.Join(err, s.Leave(ctx))
		c.obs.left(c.realm, s.ID(), ErrStopped)
	}
	c.baseCancel()
	c.mu.Lock()
	var subs []*Subscription
	for _, g := range c.groups {
		subs = append(subs, g.list()...)
	}
	c.groups, c.regs = nil, nil
	c.setStateLocked(StateStopped)
	states, attempts := c.states, c.attempts
	c.mu.Unlock()
	for _, sub := range subs {
		sub.d.Stop()
	}
	for _, sub := range subs {
		if err2 := waitChan(ctx, sub.d.Done()); err2 != nil {
			err = errors.Join(err, err2)
			break
		}
	}
	if states != nil {
		states.Close()
		err = errors.Join(err, waitChan(ctx, states.Done()))
	}
	if attempts != nil {
		attempts.Close()
		err = errors.Join(err, waitChan(ctx, attempts.Done()))
	}
	if err != nil {
		return opErr("Stop", c.realm, err)
	}
	return nil
}

// waitChan waits until ch is closed or ctx ends.
func waitChan(ctx context.Context, ch <-chan struct{}) error {
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Run starts the client, runs main with a context that ends on SIGINT,
// SIGTERM, ctx or Stop, and stops the client (within 10 s) when main
// returns. It returns main's error, or Start's; a main ended by a signal or
// by Stop, returning nil or the context's error, makes Run return nil.
// context.Cause of main's context is ErrStopped after Stop. When the
// refusal of the credential becomes final (WithAuthFailureGrace), main's
// context ends with that error as its cause, and Run returns it.
func (c *Client) Run(ctx context.Context, main func(ctx context.Context) error) error {
	sigCtx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	runCtx, cancel := context.WithCancelCause(sigCtx)
	defer cancel(nil)
	go func() {
		select {
		case <-c.stopCh:
			cancel(ErrStopped)
		case <-runCtx.Done():
		}
	}()
	stop := func() error {
		stopCtx, cancel := context.WithTimeout(context.Background(), DefaultStopBudget)
		defer cancel()
		return c.Stop(stopCtx)
	}
	// ended reports an end the caller asked for: a signal or Stop, not ctx.
	ended := func() bool { return runCtx.Err() != nil && ctx.Err() == nil }
	if err := c.Start(runCtx); err != nil {
		_ = stop()
		if ended() {
			return nil
		}
		return err
	}
	c.mu.Lock()
	final := c.final
	c.mu.Unlock()
	go func() {
		select {
		case <-final:
			c.mu.Lock()
			last := c.lastErr
			c.mu.Unlock()
			cancel(opErr("Run", c.realm, last))
		case <-runCtx.Done():
		}
	}()
	err := main(runCtx)
	if cause := context.Cause(runCtx); errors.Is(cause, ErrCredentialRefused) {
		if err == nil || errors.Is(err, context.Canceled) {
			err = cause
		}
	} else if errors.Is(err, context.Canceled) && ended() {
		err = nil
	}
	return errors.Join(err, stop())
}
