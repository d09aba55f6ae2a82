// This file holds the subscriber side of a Session: Topic, Subscribe,
// Unsubscribe and the dispatch of EVENT messages.

package engine

import (
	"context"
	"sync/atomic"

	"github.com/flockgo/ironflock/internal/wire"
)

// Event is one EVENT as a Topic receives it.
type Event struct {
	// Topic is the concrete topic (the router's details.topic for a pattern
	// subscription), else the subscribed one.
	Topic  string
	Args   []any
	Kwargs map[string]any
	// PublisherAuthID is the publisher's authid when the router disclosed it.
	PublisherAuthID string
	PublicationID   uint64
	// Trace is the trace context the router forwarded in the details.
	Trace Trace
}

// Topic is a router subscription its owner keeps across sessions and hands
// to each new Session; a Session subscribes it at most once. Its fields
// must not change once it has been subscribed.
type Topic struct {
	// URI is the topic, or the pattern with a Match policy.
	URI string
	// Match is the matching policy: "" (exact), "prefix" or "wildcard".
	Match string
	// Deliver receives each event, on the session's reader: it must not
	// block (hand the event to a Queue).
	Deliver func(Event)

	retired atomic.Bool
}

// Retire marks t as no longer wanted: a Session whose SUBSCRIBED for t
// arrives afterwards unsubscribes it again at once.
func (t *Topic) Retire() { t.retired.Store(true) }

// Subscribe subscribes t on this session unless it already is. The router
// subscription is installed on the reader as SUBSCRIBED arrives, so no
// event behind it is lost; one arriving after ctx ended is still installed
// (and removed again if t was retired meanwhile).
func (s *Session) Subscribe(ctx context.Context, t *Topic) error {
	if bound(s, s.subs, t) {
		return nil
	}
	id := s.nextID()
	opts := map[string]any{}
	if t.Match != "" {
		opts[wire.OptMatch] = t.Match
	}
	return s.establish(ctx, id, &subscribeMsg{Request: id, Options: opts, Topic: t.URI}, mtSubscribed, func(subID uint64) {
		bind(s, s.subs, subID, t)
		if t.retired.Load() {
			go func() { _ = s.Unsubscribe(s.ctx, t) }()
		}
	})
}

// Unsubscribe ends t's router subscription on this session; events for it
// stop being delivered at once. A t this session does not carry is a no-op.
func (s *Session) Unsubscribe(ctx context.Context, t *Topic) error {
	subID, ok := unbind(s, s.subs, t)
	if !ok {
		return nil
	}
	id := s.nextID()
	return s.expect(ctx, id, &unsubscribeMsg{Request: id, Subscription: subID}, newRequest(), mtUnsubscribed)
}

func (s *Session) onEvent(m *eventMsg) {
	s.mu.Lock()
	t := s.subs[m.Subscription]
	s.mu.Unlock()
	if t == nil {
		return
	}
	ev := Event{Topic: t.URI, Args: m.Args, Kwargs: m.Kwargs, PublicationID: m.Publication}
	if topic, ok := m.Details["topic"].(string); ok && topic != "" {
		ev.Topic = topic
	}
	if a, ok := m.Details["publisher_authid"].(string); ok {
		ev.PublisherAuthID = a
	}
	ev.Trace = traceOf(m.Details)
	t.Deliver(ev)
}
