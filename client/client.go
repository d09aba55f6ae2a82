package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// Client is a connection of an edge app to the IronFlock platform. Create it
// with New (or NewFromConfig, FromServer), call Start, use it from any
// number of goroutines, and Stop it once.
type Client struct {
	set  settings
	log  *slog.Logger
	env  envSource
	id   identity
	meta map[string]any
	url  string

	cur  atomic.Pointer[session] // the announced session, nil while none
	live atomic.Pointer[session] // the last announced session (for GOODBYE at Stop)

	baseCtx    context.Context // ends at Stop; parent of handler contexts
	baseCancel context.CancelFunc
	stopCh     chan struct{}

	mu        sync.Mutex
	state     State
	started   bool
	stopped   bool
	changed   chan struct{} // closed and replaced at every state change
	connected chan struct{} // closed when Start's first session is announced
	cancelSup context.CancelFunc
	supDone   chan struct{}
	lastErr   error
	groups    map[subKey]*subGroup
	regs      map[string]*Registration
	hooks     []*stopHook
	states    *mailbox[State]
	statesEnd chan struct{}
}

type stopHook struct{ fn func(context.Context) }

// New creates a client from the device environment (see the package
// documentation for the variables) and the options. It fails only when the
// serial number is missing or an option is invalid; missing keys are
// reported by the operations that need them.
func New(opts ...Option) (*Client, error) {
	s := defaultSettings()
	for _, o := range opts {
		o(&s)
	}
	if len(s.errs) > 0 {
		return nil, &OpError{Op: "New", Err: fmt.Errorf("%w: %w", ErrInvalidArgument, errors.Join(s.errs...))}
	}
	logger := s.logger
	if logger == nil {
		logger = slog.Default()
	}
	env := newEnvSource(&s, logger)
	id, err := readIdentity(&s, env, logger)
	if err != nil {
		return nil, err
	}
	url, err := routerURL(&s, env, logger)
	if err != nil {
		return nil, err
	}
	c := &Client{
		set:     s,
		log:     logger,
		env:     env,
		id:      id,
		meta:    id.metadata(),
		url:     url,
		stopCh:  make(chan struct{}),
		changed: make(chan struct{}),
		groups:  map[subKey]*subGroup{},
		regs:    map[string]*Registration{},
	}
	c.baseCtx, c.baseCancel = context.WithCancel(context.Background())
	return c, nil
}

// Identity returns the device, app and stage the client acts as.
func (c *Client) Identity() Identity { return c.id.Identity }

// URL returns the router URL the client connects to.
func (c *Client) URL() string { return c.url }

// IsConnected reports whether a session is joined and restored.
func (c *Client) IsConnected() bool {
	s := c.cur.Load()
	return s != nil && s.alive()
}

// State returns the connection state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

func (c *Client) isStopped() bool {
	select {
	case <-c.stopCh:
		return true
	default:
		return false
	}
}

// setStateLocked changes the state and wakes waiters; c.mu is held.
func (c *Client) setStateLocked(st State) {
	if c.state == st {
		return
	}
	c.state = st
	close(c.changed)
	c.changed = make(chan struct{})
	if c.set.onState == nil {
		return
	}
	if c.states == nil {
		c.states = newMailbox[State]()
		c.statesEnd = make(chan struct{})
		go c.runStateHandler(c.states, c.statesEnd)
	}
	c.states.put(st)
}

func (c *Client) runStateHandler(mb *mailbox[State], end chan struct{}) {
	defer close(end)
	for range mb.ready {
		for {
			st, ok := mb.take()
			if !ok {
				break
			}
			c.safely("state handler", "", func() { c.set.onState(st) })
		}
		if mb.isClosed() {
			return
		}
	}
}

// waitSession returns the announced session, waiting up to wait for one.
func (c *Client) waitSession(ctx context.Context, op, uri string, wait time.Duration) (*session, error) {
	if s := c.cur.Load(); s != nil && s.alive() {
		return s, nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		if c.isStopped() {
			return nil, opErr(op, uri, ErrStopped)
		}
		if s := c.cur.Load(); s != nil && s.alive() {
			return s, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return nil, opErr(op, uri, fmt.Errorf("%w to the IronFlock router (realm %q, no session after %v); make sure Start was called and the router is reachable",
				ErrNotConnected, c.id.Realm(), wait))
		case <-ctx.Done():
			return nil, opErr(op, uri, ctx.Err())
		case <-c.stopCh:
			return nil, opErr(op, uri, ErrStopped)
		}
	}
}
