// This file holds the EVENTs of network subscribers. nexus gives all
// subscribers of one publication the same details map and writes to it
// (topic of pattern subscriptions, publisher disclosure) while it fans the
// publication out, so a link encoding an earlier subscriber's EVENT would
// read the map while the broker writes it. The platform therefore never
// sends that map: the publish filter factory, which nexus calls once per
// publication before the fan-out, gives the publication a note (topic and
// publisher) that rides in the spare capacity of the publication's
// argument list, which every network subscriber's EVENT shares; a link
// builds the EVENT's details from the note.
//
// Every subscriber of one subscription with the same details (pattern or
// not, publisher identification or not) and serializer gets the same
// bytes, so the note also keeps each encoded form: a publication is
// encoded once per form, not once per subscriber.
//
// The note also carries the publication's trace context (PUBLISH options
// _traceparent and _tracestate, docs/wire.md §13) into the EVENT's
// details, which nexus would drop.
//
// nexus discloses the publisher itself only to the platform's own (local)
// sessions: a network session's HELLO is given to nexus without the
// subscriber's publisher_identification feature, which the link keeps
// for itself (noteHello), so that nexus does not build details per
// subscriber that the link would throw away.

package router

import (
	"sync/atomic"

	nexus "github.com/gammazero/nexus/v3/router"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
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

// eventNote is what one publication tells its EVENTs beyond nexus's.
type eventNote struct {
	topic  string
	pub    *publisherIdent // nil: publisher not disclosed
	trace  *realm.Trace    // the PUBLISH's trace context; nil: none
	frames atomic.Pointer[eventFrame]
}

// Forms of an EVENT's details and encoding (eventFrame.form).
const (
	formTopic = 1 << iota // details.topic: a pattern subscription
	formIdent             // details.publisher*: the subscriber asked for them
	formJSON              // encoded as JSON, else msgpack
)

// eventFrame is one encoded EVENT of a publication; frames form an
// immutable list, pushed at its head.
type eventFrame struct {
	sub  wamp.ID
	form uint8
	b    []byte
	next *eventFrame
}

// frame returns the encoded EVENT for subscription sub in form, nil when
// not encoded yet.
func (n *eventNote) frame(sub wamp.ID, form uint8) []byte {
	for f := n.frames.Load(); f != nil; f = f.next {
		if f.sub == sub && f.form == form {
			return f.b
		}
	}
	return nil
}

// keep remembers an encoded EVENT. Two links encoding the same form at
// once both keep theirs; either serves.
func (n *eventNote) keep(sub wamp.ID, form uint8, b []byte) {
	f := &eventFrame{sub: sub, form: form, b: b}
	for {
		f.next = n.frames.Load()
		if n.frames.CompareAndSwap(f.next, f) {
			return
		}
	}
}

// details returns the EVENT details of form.
func (n *eventNote) details(form uint8) wamp.Dict {
	d := wamp.Dict{}
	if form&formTopic != 0 {
		d["topic"] = n.topic
	}
	if form&formIdent != 0 && n.pub != nil {
		d["publisher"] = n.pub.session
		d["publisher_authid"] = n.pub.authID
		d["publisher_authrole"] = n.pub.authRole
	}
	if n.trace != nil {
		n.trace.AddTo(d)
	}
	return d
}

// withNote returns a copy of args with n in the slot past its end.
func withNote(args wamp.List, n *eventNote) wamp.List {
	c := make(wamp.List, len(args)+1)
	copy(c, args)
	c[len(args)] = n
	return c[: len(args) : len(args)+1]
}

// noteOf returns the note of the publication an EVENT of a network
// subscriber belongs to; nil for other EVENTs (meta events).
func noteOf(ev *wamp.Event) *eventNote {
	a := ev.Arguments
	if cap(a) != len(a)+1 {
		return nil
	}
	n, _ := a[:len(a)+1][len(a)].(*eventNote)
	return n
}

// publishFilterFactory is the realms' nexus FilterFactory. It runs in the
// publisher's session goroutine before the broker fans out: it gives the
// publication its note and keeps nexus's black- and whitelist filtering
// (nil when the publication has none, so nexus asks nothing per
// subscriber).
func (rt *Router) publishFilterFactory(msg *wamp.Publish) nexus.PublishFilter {
	var pub *publisherIdent
	if v, ok := msg.Options[publisherKey]; ok {
		pub, _ = v.(*publisherIdent)
		delete(msg.Options, publisherKey)
	}
	if disclose, _ := msg.Options[wire.OptDiscloseMe].(bool); !disclose {
		pub = nil
	}
	tr := realm.TraceOfOptions(msg.Options)
	realm.NotePublicationTrace(msg.Arguments, tr) // for the platform's own subscribers (realm/pubtrace.go)
	msg.Arguments = withNote(msg.Arguments, &eventNote{topic: string(msg.Topic), pub: pub, trace: tr})
	return nexus.NewSimplePublishFilter(msg)
}

// eventOut returns the encoded EVENT, from the publication's note when
// another subscriber's link encoded it already; ok is false when it
// cannot be encoded.
func (w *wsPeer) eventOut(ev *wamp.Event) (b []byte, ok bool) {
	n := noteOf(ev)
	if n == nil { // a meta event: details of its own
		w.tapOut(ev)
		return w.serialize(ev)
	}
	var form uint8
	w.mu.Lock()
	if w.patternSubs[ev.Subscription] {
		form |= formTopic
	}
	if w.pubIdentFeature && n.pub != nil {
		form |= formIdent
	}
	w.mu.Unlock()
	if w.json {
		form |= formJSON
	}
	watched := w.rt.watched()
	if b = n.frame(ev.Subscription, form); b != nil && !watched {
		return b, true
	}
	c := *ev
	c.Details = n.details(form)
	if watched {
		w.tapOut(&c)
	}
	if b != nil {
		return b, true
	}
	if b, ok = w.serialize(&c); ok {
		n.keep(ev.Subscription, form, b)
	}
	return b, ok
}

// noteSubscribe remembers whether a SUBSCRIBE asks for a pattern, until
// its answer names the subscription.
func (w *wsPeer) noteSubscribe(m *wamp.Subscribe) {
	match, _ := wamp.AsString(m.Options[wire.OptMatch])
	w.mu.Lock()
	if w.subReqs == nil {
		w.subReqs = map[wamp.ID]bool{}
	}
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
	if len(w.subReqs) == 0 {
		w.subReqs = nil // an idle link holds no map
	}
	if ok && pattern && sub != 0 {
		w.patternSubs[sub] = true
	}
}

// noteHello records whether the client announced publisher identification
// as a subscriber, and takes the feature out of the HELLO nexus sees.
func (w *wsPeer) noteHello(h *wamp.Hello) {
	features := mapChild(mapChild(mapChild(map[string]any(h.Details), "roles"), "subscriber"), "features")
	on, _ := features[wamp.FeaturePubIdent].(bool)
	delete(features, wamp.FeaturePubIdent)
	w.mu.Lock()
	w.pubIdentFeature = on
	w.mu.Unlock()
}

// mapChild returns the map under key in m, the map itself, not a copy
// (wamp.DictChild normalises into a new one); nil when there is none.
func mapChild(m map[string]any, key string) map[string]any {
	switch c := m[key].(type) {
	case map[string]any:
		return c
	case wamp.Dict:
		return c
	}
	return nil
}
