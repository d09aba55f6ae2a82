// This file holds the Client type, New, its accessors and waitSession, the
// wait of every operation for an announced session.

package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
)

// Client is a connection of an edge app to the IronFlock platform. Create it
// with New (or NewFromConfig, FromServer), call Start, use it from any
// number of goroutines, and Stop it once.
type Client struct {
	set   *settings // kept: shared by clients with the same settings, read only
	log   *slog.Logger
	env   envSource
	id    identity
	url   string
	realm string // the realm joined: WithRealm, else the app's realm
	// meta is the device metadata of writes (identity.metadata), made by
	// the first write: see metadata.
	meta atomic.Pointer[map[string]any]

	cur  atomic.Pointer[engine.Session] // the announced session, nil while none
	live atomic.Pointer[engine.Session] // the last announced session (for GOODBYE at Stop)
	// lastFn is the device function URI composed last (devicefn.go).
	lastFn atomic.Pointer[functionURI]

	baseCtx    context.Context // ends at Stop; parent of handler contexts
	baseCancel func()
	stopCh     chan struct{}

	mu        sync.Mutex
	state     State
	started   bool
	stopped   bool
	changed   chan struct{} // closed and replaced at every state change
	connected chan struct{} // closed when Start's first session is announced
	final     chan struct{} // closed when the supervisor gives up on a refused credential
	cancelSup context.CancelFunc
	supDone   chan struct{}
	lastErr   error
	groups    []*subGroup     // by key: few, looked up by operations only (groupLocked)
	regs      []*Registration // by URI: few, looked up by operations only (regLocked)
	hooks     []*stopHook
	states    *engine.Queue[State] // runs the state handler, once a state changed
	attempts  *engine.Queue[error] // runs the attempt handler, once an attempt ended

	test atomic.Pointer[testHooks] // nil outside tests

	// obs is the WithHooks hooks, nil when none was given; stats the
	// counters of Stats.
	obs       *hookSet
	stats     stats
	templates templateCache // Template by URI, for the hooks (observe_set.go)
}

// stopHook is a function registered with OnStop.
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
	return newClient(s, logger, env, id, url), nil
}

// newClient assembles a client that joins s.realm, else the app's realm;
// New and ForRealm share it.
func newClient(s settings, logger *slog.Logger, env envSource, id identity, url string) *Client {
	c := &Client{
		set:     s.kept(),
		log:     logger,
		env:     env,
		id:      id,
		url:     url,
		realm:   id.Realm(),
		stopCh:  make(chan struct{}),
		changed: make(chan struct{}),
	}
	if s.realm != "" {
		c.realm = s.realm
	}
	if c.set.hooks.n > 0 {
		c.obs = &c.set.hooks
	}
	c.baseCtx, c.baseCancel = engine.NewEndContext()
	return c
}

// metadata returns the device metadata merged into the kwargs of writes,
// made once, by the first write: an idle client holds none. Its callers
// share it and never change it.
func (c *Client) metadata() map[string]any {
	if m := c.meta.Load(); m != nil {
		return *m
	}
	m := c.id.metadata()
	c.meta.CompareAndSwap(nil, &m)
	return *c.meta.Load()
}

// Identity returns the device, app and stage the client acts as.
func (c *Client) Identity() Identity { return c.id.Identity }

// URL returns the router URL the client connects to.
func (c *Client) URL() string { return c.url }

// Realm returns the realm the client joins: the one set with WithRealm,
// else the app's realm realm-<swarm>-<app>-<stage>.
func (c *Client) Realm() string { return c.realm }

// IsConnected reports whether a session is joined and restored.
func (c *Client) IsConnected() bool {
	s := c.cur.Load()
	return s != nil && s.Alive()
}

// State returns the connection state.
func (c *Client) State() State {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// isStopped reports whether Stop was called.
func (c *Client) isStopped() bool {
	select {
	case <-c.stopCh:
		return true
	default:
		return false
	}
}

// waitSession returns the announced session, waiting up to wait for one.
func (c *Client) waitSession(ctx context.Context, op, uri string, wait time.Duration) (*engine.Session, error) {
	s := c.cur.Load()
	if s == nil || !s.Alive() {
		var err error
		if s, err = c.awaitSession(ctx, op, uri, wait); err != nil {
			return nil, err
		}
	}
	if h := c.test.Load(); h != nil && h.using != nil {
		h.using(s)
	}
	return s, nil
}

// awaitSession waits up to wait for an announced session.
func (c *Client) awaitSession(ctx context.Context, op, uri string, wait time.Duration) (*engine.Session, error) {
	if h := c.test.Load(); h != nil && h.waiting != nil {
		h.waiting()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		c.mu.Lock()
		changed, refused := c.changed, c.refusedErrLocked()
		c.mu.Unlock()
		if c.isStopped() {
			return nil, opErr(op, uri, ErrStopped)
		}
		if refused != nil {
			return nil, opErr(op, uri, refused)
		}
		if s := c.cur.Load(); s != nil && s.Alive() {
			return s, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return nil, opErr(op, uri, fmt.Errorf("%w to the IronFlock router (realm %q, no session after %s); make sure Start was called and the router is reachable",
				ErrNotConnected, c.realm, durationText(wait)))
		case <-ctx.Done():
			return nil, opErr(op, uri, ctx.Err())
		case <-c.stopCh:
			return nil, opErr(op, uri, ErrStopped)
		}
	}
}
