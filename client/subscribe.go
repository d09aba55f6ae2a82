// This file holds subscriptions on the client side: Event, Subscribe,
// Unsubscribe, and the groups of local subscriptions that share one router
// subscription and survive reconnects.

package client

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/client/internal/engine"
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

	// trace is the trace context the event carried; at its arrival on the
	// link, taken only when a hook watches events.
	trace engine.Trace
	at    time.Time
}

// Decode decodes the event's first positional argument into v (or its
// keyword arguments when it has none), with the rules of Decode.
func (e *Event) Decode(v any) error { return decodePayload(e.Args, e.Kwargs, v) }

// EventHandler handles the events of a subscription. Calls for one
// subscription never overlap and arrive in order; ctx ends when the
// subscription is removed or the client stops.
type EventHandler func(ctx context.Context, ev *Event)

// SubscribeOption configures a subscription.
type SubscribeOption func(*subscribeSettings)

// subscribeSettings is what the options of one subscription set.
type subscribeSettings struct {
	key   subKey
	limit int // 0: the client's WithEventQueueLimit
	err   error
}

// queueOnly applies the options of a subscription that takes only
// QueueLimit (SubscribeToTable, SubscribeToView, SubscribeToDataErrors):
// it returns the queue limit, or an error naming op, name and what is
// wrong (an option's error, a match policy, a nil handler).
func queueOnly(op, name, kind string, opts []SubscribeOption, nilHandler bool) (int, error) {
	var ss subscribeSettings
	for _, o := range opts {
		o(&ss)
	}
	switch {
	case ss.err != nil:
		return 0, invalidArg(op, name, "%s", ss.err)
	case ss.key.match != "":
		return 0, invalidArg(op, name, "a %s subscription takes no match policy", kind)
	case nilHandler:
		return 0, invalidArg(op, name, "handler is nil")
	}
	return ss.limit, nil
}

// Match selects the matching policy: MatchPrefix or MatchWildcard (empty
// segments match anything). Exact matching is the default.
func Match(policy string) SubscribeOption {
	return func(s *subscribeSettings) { s.key.match = policy }
}

// Matching policies for Match.
const (
	MatchPrefix   = wire.MatchPrefix
	MatchWildcard = wire.MatchWildcard
)

// subKey identifies a router subscription: topic and matching policy.
type subKey struct{ topic, match string }

// subGroup is every local Subscription of one subKey; it survives
// reconnects and its topic is subscribed on each new session.
type subGroup struct {
	key    subKey
	topic  *engine.Topic // the same on every session
	locals atomic.Pointer[[]*Subscription]
	timed  bool // a hook watches events: their arrival is taken
}

func newSubGroup(key subKey, timed bool) *subGroup {
	g := &subGroup{key: key, timed: timed}
	g.topic = &engine.Topic{URI: key.topic, Match: key.match, Deliver: g.deliver}
	return g
}

func (g *subGroup) list() []*Subscription {
	if p := g.locals.Load(); p != nil {
		return *p
	}
	return nil
}

// deliver hands an event to every local subscription, on the session's
// reader: one *Event, shared by all of them.
func (g *subGroup) deliver(e engine.Event) {
	ev := &Event{Topic: e.Topic, Args: e.Args, Kwargs: e.Kwargs, PublisherAuthID: e.PublisherAuthID, PublicationID: e.PublicationID, trace: e.Trace}
	if g.timed {
		ev.at = time.Now()
	}
	for _, sub := range g.list() {
		sub.d.Put(ev)
	}
}

// delivery runs a handler over the events of one or more subscriptions
// (SubscribeToTable feeds two into one), in order, one call at a time, on
// a goroutine of its own.
type delivery = engine.Queue[*Event]

// newDelivery starts the queue of a subscription's handler, holding at
// most limit events (0: the client's default); when it is full the oldest
// waiting event is dropped, counted and reported in the log.
func (c *Client) newDelivery(label string, limit int, handler EventHandler) *delivery {
	if limit <= 0 {
		limit = c.set.eventQueueLimit
	}
	warn := c.overloadWarning("ironflock: a subscription's handler cannot keep up; dropping its oldest queued events", "topic", label, "queue_limit", limit)
	var q *delivery
	q = engine.NewBoundedQueue(c.baseCtx, limit, func(dropped uint64) { warn("dropped", dropped) },
		func(ctx context.Context, ev *Event) {
			if ev.trace.Parent != "" {
				ctx = c.continued(ctx, ev.trace)
			}
			if c.obs.processing() {
				c.processEvent(ctx, label, q, ev, handler)
				return
			}
			c.safely("event handler", label, func() { handler(ctx, ev) })
		})
	return q
}

// processEvent runs handler over ev with the hooks told.
func (c *Client) processEvent(ctx context.Context, label string, q *delivery, ev *Event, handler EventHandler) {
	op := Op{Kind: OpEvent, URI: ev.Topic, Template: c.template(ev.Topic)}
	ctx = c.obs.startProcess(ctx, op)
	start := time.Now()
	d := Delivery{Queued: q.Len()}
	if !ev.at.IsZero() {
		d.Lag = start.Sub(ev.at)
	}
	c.safely("event handler", label, func() { handler(ctx, ev) })
	d.Took = time.Since(start)
	for _, h := range c.obs.event {
		h.OnEvent(ctx, op, d)
	}
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
func (s *Subscription) Done() <-chan struct{} { return s.d.Done() }

// Dropped returns the number of events dropped because the handler could
// not keep up and the subscription's queue was full (see QueueLimit).
func (s *Subscription) Dropped() uint64 { return s.d.Dropped() }

// Queued returns the number of events waiting for the handler.
func (s *Subscription) Queued() int { return s.d.Len() }

// Subscribe subscribes handler to topic. Events of one subscription are
// delivered in order on a goroutine of their own. The subscription is
// restored after every reconnect. While disconnected, Subscribe waits for a
// session (10 s by default) before failing with ErrNotConnected.
func (c *Client) Subscribe(ctx context.Context, topic string, handler EventHandler, opts ...SubscribeOption) (*Subscription, error) {
	const op = "Subscribe"
	ss := subscribeSettings{key: subKey{topic: topic}}
	for _, o := range opts {
		o(&ss)
	}
	key := ss.key
	if ss.err != nil {
		return nil, invalidArg(op, topic, "%s", ss.err)
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
	return c.subscribe(ctx, op, key, ss.limit, handler)
}

func (c *Client) subscribe(ctx context.Context, op string, key subKey, limit int, handler EventHandler) (*Subscription, error) {
	if _, err := c.waitSession(ctx, op, key.topic, c.set.sessionWait); err != nil {
		return nil, err
	}
	d := c.newDelivery(key.topic, limit, handler)
	sub := &Subscription{c: c, key: key, d: d}
	if err := c.attach(ctx, op, sub); err != nil {
		d.Stop()
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
	if s == nil || !s.Alive() {
		if s, err = c.waitSession(ctx, op, sub.key.topic, c.set.sessionWait); err != nil {
			c.removeLocal(sub)
			return err
		}
	}
	if err := wampError(s.Subscribe(ctx, g.topic)); err != nil {
		c.removeLocal(sub)
		return opErr(op, sub.key.topic, err)
	}
	return nil
}

// groupLocked returns the group of key, nil when there is none; c.mu is
// held. The groups are few and looked up by operations only (a map would
// cost an idle client about 0.4 KB).
func (c *Client) groupLocked(key subKey) *subGroup {
	for _, g := range c.groups {
		if g.key == key {
			return g
		}
	}
	return nil
}

// without returns s without x (its order aside), clearing the slot x
// leaves.
func without[T comparable](s []T, x T) []T {
	for i, e := range s {
		if e == x {
			last := len(s) - 1
			var zero T
			s[i], s[last] = s[last], zero
			return s[:last]
		}
	}
	return s
}

// addLocal adds sub to the group of its key, creating the group, and
// returns the session current at that moment.
func (c *Client) addLocal(sub *Subscription) (*subGroup, *engine.Session, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return nil, nil, ErrStopped
	}
	g := c.groupLocked(sub.key)
	if g == nil {
		g = newSubGroup(sub.key, c.obs.processing())
		c.groups = append(c.groups, g)
	}
	next := append(append([]*Subscription(nil), g.list()...), sub)
	g.locals.Store(&next)
	return g, c.cur.Load(), nil
}

// removeLocal takes sub out of its group; it returns the group when the
// group became empty (and was forgotten and retired).
func (c *Client) removeLocal(sub *Subscription) *subGroup {
	c.mu.Lock()
	defer c.mu.Unlock()
	g := c.groupLocked(sub.key)
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
		c.groups = without(c.groups, g)
		g.topic.Retire()
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
	sub.d.Stop()
	g := c.removeLocal(sub)
	if g == nil {
		return nil
	}
	s := c.cur.Load()
	if s == nil || !s.Alive() {
		return nil
	}
	return opErr(op, sub.key.topic, wampError(s.Unsubscribe(ctx, g.topic)))
}
