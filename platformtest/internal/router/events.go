// This file holds the EVENT details of network subscribers. nexus gives
// all subscribers of one publication the same details map and writes to it
// (topic of pattern subscriptions, publisher disclosure) while it fans the
// publication out, so a connection writing an earlier subscriber's EVENT
// would read the map while the broker writes it. The platform therefore
// never sends that map: its publish filter, which nexus calls for each
// subscriber right before queueing the subscriber's EVENT, leaves a note
// with the topic and the publisher; the connection's writer builds the
// EVENT's details from the note.

package router

import (
	"reflect"

	nexus "github.com/gammazero/nexus/v3/router"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// publisherKey is a private PUBLISH option carrying the publisher from the
// authorizer to the publish filter; the filter removes it.
const publisherKey = "_platformtest.publisher"

// publisherIdent is what a disclosed publication tells subscribers.
type publisherIdent struct {
	session  uint64
	authID   string
	authRole string
}

// eventNote describes the EVENT a publication sends one subscriber.
type eventNote struct {
	args  wamp.List // the publication's argument list, to match the EVENT
	topic string
	pub   *publisherIdent // nil: publisher not disclosed
}

// publishFilter keeps nexus's black- and whitelist filtering and leaves a
// note for every network subscriber that gets the publication.
type publishFilter struct {
	rt    *Router
	inner nexus.PublishFilter
	note  eventNote
}

// publishFilterFactory is the realms' nexus FilterFactory. It runs in the
// publisher's session goroutine before the broker fans out.
func (rt *Router) publishFilterFactory(msg *wamp.Publish) nexus.PublishFilter {
	var pub *publisherIdent
	if v, ok := msg.Options[publisherKey]; ok {
		pub, _ = v.(*publisherIdent)
		delete(msg.Options, publisherKey)
	}
	if disclose, _ := msg.Options[wire.OptDiscloseMe].(bool); !disclose {
		pub = nil
	}
	if msg.Arguments == nil {
		// A list of its own makes the publication's EVENTs recognisable;
		// an empty list is not serialized, as nil is not.
		msg.Arguments = make(wamp.List, 0, 1)
	}
	return &publishFilter{
		rt:    rt,
		inner: nexus.NewSimplePublishFilter(msg),
		note:  eventNote{args: msg.Arguments, topic: string(msg.Topic), pub: pub},
	}
}

// Allowed applies the publication's own filters and notes the EVENT for a
// network subscriber. nexus calls it from the broker goroutine.
func (f *publishFilter) Allowed(sess *wamp.Session) bool {
	if f.inner != nil && !f.inner.Allowed(sess) {
		return false
	}
	if s := f.rt.sessionByID(uint64(sess.ID)); s != nil && s.peer != nil {
		s.peer.noteEvent(f.note)
	}
	return true
}

func (w *wsPeer) noteEvent(n eventNote) {
	w.mu.Lock()
	w.notes = append(w.notes, n)
	w.mu.Unlock()
}

// eventOut returns the EVENT to write: with details of its own when a note
// matches it. An EVENT without note (a meta event) has unshared details.
func (w *wsPeer) eventOut(ev *wamp.Event) *wamp.Event {
	w.mu.Lock()
	defer w.mu.Unlock()
	id := reflect.ValueOf(ev.Arguments).Pointer()
	for i, n := range w.notes {
		if reflect.ValueOf(n.args).Pointer() != id {
			continue
		}
		// Notes before i belong to EVENTs that were never queued.
		w.notes = w.notes[i+1:]
		if len(w.notes) == 0 {
			w.notes = nil
		}
		d := wamp.Dict{}
		if w.patternSubs[ev.Subscription] {
			d["topic"] = n.topic
		}
		if n.pub != nil && w.pubIdentFeature {
			d["publisher"] = n.pub.session
			d["publisher_authid"] = n.pub.authID
			d["publisher_authrole"] = n.pub.authRole
		}
		c := *ev
		c.Details = d
		return &c
	}
	return ev
}

// noteSubscribe remembers whether a SUBSCRIBE asks for a pattern, until
// its answer names the subscription.
func (w *wsPeer) noteSubscribe(m *wamp.Subscribe) {
	match, _ := wamp.AsString(m.Options[wire.OptMatch])
	w.mu.Lock()
	w.subReqs[m.Request] = match != "" && match != wire.MatchExact
	w.mu.Unlock()
}

// noteSubscribeAnswer records a pattern subscription once SUBSCRIBED (or
// forgets the request on ERROR).
func (w *wsPeer) noteSubscribeAnswer(req, sub wamp.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	pattern, ok := w.subReqs[req]
	delete(w.subReqs, req)
	if ok && pattern && sub != 0 {
		w.patternSubs[sub] = true
	}
}

// noteHello records whether the client announced publisher identification
// as a subscriber.
func (w *wsPeer) noteHello(h *wamp.Hello) {
	features := wamp.DictChild(wamp.DictChild(wamp.DictChild(h.Details, "roles"), "subscriber"), "features")
	on, _ := features[wamp.FeaturePubIdent].(bool)
	w.mu.Lock()
	w.pubIdentFeature = on
	w.mu.Unlock()
}
