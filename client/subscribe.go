package client

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// Event is one publication delivered to a subscription. Its values are
// shared by every subscription of the same topic: treat them as read-only.
type Event struct {
	// Topic is the topic the event was published to (for pattern
	// subscriptions, the concrete topic).
	Topic  string
	Args   []any
	Kwargs map[string]any
	// PublisherAuthID is the publisher's authid when the router disclosed it
	// (on the platform: the device serial number).
	PublisherAuthID string
	PublicationID   uint64
}

// Decode decodes the event's first positional argument into v (or its
// keyword arguments when it has none), with the rules of Decode.
func (e *Event) Decode(v any) error { return decodePayload(e.Args, e.Kwargs, v) }

func decodePayload(args []any, kwargs map[string]any, v any) error {
	if len(args) > 0 {
		return DecodeInto(args[0], v)
	}
	if kwargs != nil {
		return DecodeInto(kwargs, v)
	}
	return DecodeInto(nil, v)
}

// EventHandler handles the events of a subscription. Calls for one
// subscription never overlap and arrive in order; ctx ends when the
// subscription is removed or the client stops.
type EventHandler func(ctx context.Context, ev *Event)

// SubscribeOption configures a subscription.
type SubscribeOption func(*subKey)

// Match selects the matching policy: MatchPrefix or MatchWildcard (empty
// segments match anything). Exact matching is the default.
func Match(policy string) SubscribeOption { return func(k *subKey) { k.match = policy } }

// Matching policies for Match.
const (
	MatchPrefix   = wire.MatchPrefix
	MatchWildcard = wire.MatchWildcard
)

// subKey identifies a router subscription: topic and matching policy.
type subKey struct{ topic, match string }

// subGroup is every local Subscription of one subKey; it survives
// reconnects and is installed on each new session.
type subGroup struct {
	key    subKey
	locals atomic.Pointer[[]*Subscription]
}

func (g *subGroup) list() []*Subscription {
	if p := g.locals.Load(); p != nil {
		return *p
	}
	return nil
}

func (g *subGroup) deliver(ev *Event) {
	for _, sub := range g.list() {
		sub.d.mb.put(ev)
	}
}

// delivery runs a handler over a mailbox of events on its own goroutine:
// in order, one call at a time. Several subscriptions may feed one delivery
// (SubscribeToTable does).
type delivery struct {
	handler EventHandler
	label   string
	mb      *mailbox[*Event]
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	stopped atomic.Bool
	once    sync.Once
}

func (c *Client) newDelivery(label string, handler EventHandler) *delivery {
	d := &delivery{handler: handler, label: label, mb: newMailbox[*Event](), done: make(chan struct{})}
	d.ctx, d.cancel = context.WithCancel(c.baseCtx)
	go d.run(c)
	return d
}

func (d *delivery) run(c *Client) {
	defer close(d.done)
	for {
		select {
		case <-d.mb.ready:
		case <-d.ctx.Done():
			return
		}
		for {
			if d.stopped.Load() {
				return
			}
			ev, ok := d.mb.take()
			if !ok {
				break
			}
			c.safely("event handler", d.label, func() { d.handler(d.ctx, ev) })
		}
	}
}

// stop ends the delivery at once: no handler call starts afterwards.
func (d *delivery) stop() {
	d.once.Do(func() {
		d.stopped.Store(true)
		d.cancel()
		d.mb.close()
	})
}

// Subscription is an active subscription. It is restored after every
// reconnect until Unsubscribe.
type Subscription struct {
	c   *Client
	key subKey
	d   *delivery
}

// Topic returns the subscribed topic.
func (s *Subscription) Topic() string { return s.key.topic }

// Unsubscribe removes the subscription; see Client.Unsubscribe.
func (s *Subscription) Unsubscribe(ctx context.Context) error { return s.c.Unsubscribe(ctx, s) }

// Done is closed once the subscription's delivery goroutine has ended.
func (s *Subscription) Done() <-chan struct{} { return s.d.done }

// Subscribe subscribes handler to topic. Events of one subscription are
// delivered in order on a goroutine of their own. The subscription is
// restored after every reconnect. While disconnected, Subscribe waits for a
// session (10 s by default) before failing with ErrNotConnected.
func (c *Client) Subscribe(ctx context.Context, topic string, handler EventHandler, opts ...SubscribeOption) (*Subscription, error) {
	const op = "Subscribe"
	key := subKey{topic: topic}
	for _, o := range opts {
		o(&key)
	}
	if err := checkTopic(op, topic, key.match != ""); err != nil {
		return nil, err
	}
	switch key.match {
	case "", wire.MatchPrefix, wire.MatchWildcard:
	case wire.MatchExact:
		key.match = ""
	default:
		return nil, invalidArg(op, topic, "unknown match policy %q (want prefix or wildcard)", key.match)
	}
	if handler == nil {
		return nil, invalidArg(op, topic, "handler is nil")
	}
	return c.subscribe(ctx, op, key, handler)
}

func (c *Client) subscribe(ctx context.Context, op string, key subKey, handler EventHandler) (*Subscription, error) {
	if _, err := c.waitSession(ctx, op, key.topic, c.set.sessionWait); err != nil {
		return nil, err
	}
	d := c.newDelivery(key.topic, handler)
	sub := &Subscription{c: c, key: key, d: d}
	if err := c.attach(ctx, op, sub); err != nil {
		d.stop()
		return nil, err
	}
	return sub, nil
}

// attach adds sub to its group and makes sure the current session carries
// the group.
func (c *Client) attach(ctx context.Context, op string, sub *Subscription) error {
	g, s, err := c.addLocal(sub)
	if err != nil {
		return opErr(op, sub.key.topic, err)
	}
	// Every session announced from now on restores g; only the session
	// current when g was registered may lack it.
	if s == nil || !s.alive() {
		if s, err = c.waitSession(ctx, op, sub.key.topic, c.set.sessionWait); err != nil {
			c.removeLocal(sub)
			return err
		}
	}
	if err := s.ensureGroup(ctx, g); err != nil {
		c.removeLocal(sub)
		return opErr(op, sub.key.topic, err)
	}
	return nil
}

// addLocal adds sub to the group of its key, creating the group, and
// returns the session current at that moment.
func (c *Client) addLocal(sub *Subscription) (*subGroup, *session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil, nil, ErrStopped
	}
	g := c.groups[sub.key]
	if g == nil {
		g = &subGroup{key: sub.key}
		c.groups[sub.key] = g
	}
	next := append(append([]*Subscription(nil), g.list()...), sub)
	g.locals.Store(&next)
	return g, c.cur.Load(), nil
}

// removeLocal takes sub out of its group; it returns the group when the
// group became empty (and was forgotten).
func (c *Client) removeLocal(sub *Subscription) *subGroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.groups[sub.key]
	if g == nil {
		return nil
	}
	var next []*Subscription
	for _, l := range g.list() {
		if l != sub {
			next = append(next, l)
		}
	}
	g.locals.Store(&next)
	if len(next) == 0 {
		delete(c.groups, sub.key)
		return g
	}
	return nil
}

// Unsubscribe removes a subscription. It takes effect at once: no handler
// call starts after Unsubscribe returns, and queued events are dropped. The
// router subscription ends when its last local subscription does.
func (c *Client) Unsubscribe(ctx context.Context, sub *Subscription) error {
	const op = "Unsubscribe"
	if sub == nil || sub.c != c {
		return invalidArg(op, "", "not a subscription of this client")
	}
	sub.d.stop()
	g := c.removeLocal(sub)
	if g == nil {
		return nil
	}
	s := c.cur.Load()
	if s == nil || !s.alive() {
		return nil
	}
	return opErr(op, sub.key.topic, s.dropGroup(ctx, g))
}

// ensureGroup subscribes g on this session unless it already is.
func (s *session) ensureGroup(ctx context.Context, g *subGroup) error {
	s.mu.Lock()
	_, ok := s.groupIDs[g]
	s.mu.Unlock()
	if ok {
		return nil
	}
	id := s.nextID()
	opts := wamp.Dict{}
	if g.key.match != "" {
		opts[wire.OptMatch] = g.key.match
	}
	req := newRequest()
	req.onReply = func(m wamp.Message) {
		if sm, ok := m.(*wamp.Subscribed); ok {
			s.installGroup(uint64(sm.Subscription), g)
		}
	}
	req.onLate = func(m wamp.Message) {
		if sm, ok := m.(*wamp.Subscribed); ok {
			s.installGroup(uint64(sm.Subscription), g)
		}
	}
	msg, err := s.roundTrip(ctx, id, &wamp.Subscribe{Request: id, Options: opts, Topic: wamp.URI(g.key.topic)}, req, s.c.set.responseTimeout)
	if err != nil {
		return err
	}
	if _, ok := msg.(*wamp.Subscribed); !ok {
		return unexpected(msg, "SUBSCRIBED")
	}
	return nil
}

// installGroup maps a router subscription to g; a group that has no local
// subscription left is unsubscribed again.
func (s *session) installGroup(subID uint64, g *subGroup) {
	s.mu.Lock()
	s.subs[subID] = g
	s.groupIDs[g] = subID
	s.mu.Unlock()
	if len(g.list()) == 0 {
		go func() { _ = s.dropGroup(s.ctx, g) }()
	}
}

// dropGroup ends g's router subscription on this session.
func (s *session) dropGroup(ctx context.Context, g *subGroup) error {
	s.mu.Lock()
	subID, ok := s.groupIDs[g]
	if ok {
		delete(s.groupIDs, g)
		delete(s.subs, subID)
	}
	s.mu.Unlock()
	if !ok {
		return nil
	}
	id := s.nextID()
	msg, err := s.roundTrip(ctx, id, &wamp.Unsubscribe{Request: id, Subscription: wamp.ID(subID)}, newRequest(), s.c.set.responseTimeout)
	if err != nil {
		return err
	}
	if _, ok := msg.(*wamp.Unsubscribed); !ok {
		return unexpected(msg, "UNSUBSCRIBED")
	}
	return nil
}

func (s *session) onEvent(m *wamp.Event) {
	s.mu.Lock()
	g := s.subs[uint64(m.Subscription)]
	s.mu.Unlock()
	if g == nil {
		return
	}
	ev := &Event{Topic: g.key.topic, Args: []any(m.Arguments), Kwargs: map[string]any(m.ArgumentsKw), PublicationID: uint64(m.Publication)}
	if t, ok := m.Details["topic"].(string); ok && t != "" {
		ev.Topic = t
	}
	if a, ok := m.Details["publisher_authid"].(string); ok {
		ev.PublisherAuthID = a
	}
	g.deliver(ev)
}

// checkTopic validates a topic or procedure URI before anything is sent.
func checkTopic(op, uri string, pattern bool) error {
	switch {
	case uri == "":
		return invalidArg(op, uri, "the URI is empty")
	case strings.TrimSpace(uri) != uri || strings.ContainsAny(uri, " \t\r\n#"):
		return invalidArg(op, uri, "the URI contains whitespace or '#'")
	case !pattern && (strings.HasPrefix(uri, ".") || strings.HasSuffix(uri, ".") || strings.Contains(uri, "..")):
		return invalidArg(op, uri, "the URI has an empty segment")
	}
	return nil
}

func (c *Client) safely(what, uri string, fn func()) {
	defer func() {
		if r := recover(); r != nil {
			c.log.Error("ironflock: "+what+" panicked", "uri", uri, "panic", fmt.Sprint(r))
		}
	}()
	fn()
}
