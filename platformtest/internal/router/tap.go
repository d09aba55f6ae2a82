// This file holds the live traffic tap: watchers (the web console) see the
// messages of app sessions as they pass, inbound as recorded (PUBLISH,
// CALL, SUBSCRIBE, REGISTER, before authorization and faults) and outbound
// as queued for the link (RESULT, ERROR, EVENT, INVOCATION). A watcher
// has a bounded buffer: when it falls behind, messages are dropped for it
// alone and counted, so a slow watcher never slows or blocks the router.
// With no watcher the tap costs one atomic load per message; beside that a
// link always remembers the URIs of its subscriptions and registrations
// (a map entry per SUBSCRIBE and REGISTER), so that the EVENTs and
// INVOCATIONs a watcher sees are named.

package router

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// Directions of tapped traffic.
const (
	DirIn  = "in"  // from a client to the router
	DirOut = "out" // from the router to a client
)

// Kinds of outbound messages the tap shows, beside the inbound kinds
// (KindPublish, KindCall, KindSubscribe, KindRegister).
const (
	KindResult     = "result"
	KindError      = "error"
	KindEvent      = "event"
	KindInvocation = "invocation"
)

// maxTapCalls bounds the calls a link remembers for naming their RESULT
// and ERROR while watched.
const maxTapCalls = 4096

// Traffic is one message of an app session as the tap shows it.
type Traffic struct {
	Seq       uint64 // increases with every tapped message
	Time      time.Time
	Dir       string // DirIn or DirOut
	Kind      string
	Realm     string
	Session   uint64
	AuthID    string // the session's authid: the device serial
	DeviceKey int
	// URI is the topic or procedure; for a RESULT or ERROR of a call seen
	// while watched, the procedure called; for an INVOCATION, the
	// procedure when the link registered it on this router. "" when not
	// known.
	URI     string
	Request uint64 // request ID; the subscription of an EVENT
	Error   string // the error URI of an ERROR
	Args    []any
	Kwargs  map[string]any
}

// Tap is one watcher of the traffic. Close it when done.
type Tap struct {
	rt      *Router
	ch      chan Traffic
	dropped atomic.Int64
	once    sync.Once
}

// taps are the watchers of a router.
type taps struct {
	n   atomic.Int32 // how many watch: 0 skips everything
	seq atomic.Uint64
	mu  sync.RWMutex
	set map[*Tap]struct{}
}

// Watch starts watching the traffic with a buffer of buf messages (at
// least 1). The channel closes when the tap or the router closes.
func (rt *Router) Watch(buf int) *Tap {
	t := &Tap{rt: rt, ch: make(chan Traffic, max(buf, 1))}
	rt.taps.mu.Lock()
	defer rt.taps.mu.Unlock()
	rt.mu.Lock()
	closed := rt.closed
	rt.mu.Unlock()
	if closed {
		close(t.ch)
		t.once.Do(func() {})
		return t
	}
	if rt.taps.set == nil {
		rt.taps.set = map[*Tap]struct{}{}
	}
	rt.taps.set[t] = struct{}{}
	rt.taps.n.Add(1)
	return t
}

// C returns the tapped messages, oldest first.
func (t *Tap) C() <-chan Traffic { return t.ch }

// Dropped returns how many messages were dropped for this watcher because
// its buffer was full.
func (t *Tap) Dropped() int64 { return t.dropped.Load() }

// Close stops watching and closes the channel. It is idempotent.
func (t *Tap) Close() {
	t.rt.taps.mu.Lock()
	defer t.rt.taps.mu.Unlock()
	t.closeLocked()
}

func (t *Tap) closeLocked() {
	t.once.Do(func() {
		delete(t.rt.taps.set, t)
		t.rt.taps.n.Add(-1)
		close(t.ch)
	})
}

// closeTaps closes every watcher, when the router closes.
func (rt *Router) closeTaps() {
	rt.taps.mu.Lock()
	defer rt.taps.mu.Unlock()
	for t := range rt.taps.set {
		t.closeLocked()
	}
}

// watched reports whether anybody watches the traffic.
func (rt *Router) watched() bool { return rt.taps.n.Load() > 0 }

// emit hands m to every watcher, dropping it for those whose buffer is
// full. m's payload must not be shared with the router.
func (rt *Router) emit(m Traffic) {
	m.Seq = rt.taps.seq.Add(1)
	rt.taps.mu.RLock()
	defer rt.taps.mu.RUnlock()
	for t := range rt.taps.set {
		select {
		case t.ch <- m:
		default:
			t.dropped.Add(1)
		}
	}
}

// tapIn shows an inbound message of s as recorded, and remembers a CALL's
// procedure for its answer.
func (rt *Router) tapIn(w *wsPeer, s *session, m *Message, msg wamp.Message) {
	if !rt.watched() {
		return
	}
	var req wamp.ID
	switch x := msg.(type) {
	case *wamp.Call:
		req = x.Request
		w.tapNoteCall(req, m.URI)
	case *wamp.Publish:
		req = x.Request
	case *wamp.Subscribe:
		req = x.Request
	case *wamp.Register:
		req = x.Request
	}
	rt.emit(Traffic{Time: m.Time, Dir: DirIn, Kind: m.Kind, Realm: m.Realm, Session: m.Session,
		AuthID: m.AuthID, DeviceKey: s.device.Key, URI: m.URI, Request: uint64(req),
		Args: wirevalue.CloneList(m.Args), Kwargs: wirevalue.CloneDict(m.Kwargs)})
}

// tapOut shows a message the router queues for w's client.
func (w *wsPeer) tapOut(msg wamp.Message) {
	rt := w.rt
	if !rt.watched() {
		return
	}
	s := w.session()
	if s == nil {
		return
	}
	t := Traffic{Time: rt.clock.Now(), Dir: DirOut, Realm: s.realm.Name, Session: s.id, AuthID: s.authID,
		DeviceKey: s.device.Key}
	var args wamp.List
	var kwargs wamp.Dict
	switch m := msg.(type) {
	case *wamp.Result:
		t.Kind, t.Request, args, kwargs = KindResult, uint64(m.Request), m.Arguments, m.ArgumentsKw
		if progress, _ := m.Details[wamp.OptProgress].(bool); progress {
			t.URI = w.tapCall(m.Request, false)
		} else {
			t.URI = w.tapCall(m.Request, true)
		}
	case *wamp.Error:
		t.Kind, t.Request, t.Error, args, kwargs = KindError, uint64(m.Request), string(m.Error), m.Arguments, m.ArgumentsKw
		if m.Type == wamp.CALL {
			t.URI = w.tapCall(m.Request, true)
		}
	case *wamp.Event:
		t.Kind, t.Request, args, kwargs = KindEvent, uint64(m.Subscription), m.Arguments, m.ArgumentsKw
		t.URI, _ = wamp.AsString(m.Details["topic"])
		if t.URI == "" {
			t.URI = w.tapSub(m.Subscription)
		}
	case *wamp.Invocation:
		t.Kind, t.Request, args, kwargs = KindInvocation, uint64(m.Request), m.Arguments, m.ArgumentsKw
		t.URI, _ = wamp.AsString(m.Details["procedure"])
		if t.URI == "" {
			t.URI = w.tapReg(m.Registration)
		}
	default:
		return
	}
	t.Args, t.Kwargs = wirevalue.CloneList(args), wirevalue.CloneDict(kwargs)
	rt.emit(t)
}

// tapState is what a link remembers to name the URIs of outbound
// messages: the procedures of calls made while watched, and the
// subscriptions and registrations it made (a few per link).
type tapState struct {
	calls   map[wamp.ID]string // CALL request → procedure, while watched
	subReqs map[wamp.ID]string // SUBSCRIBE request → topic
	subs    map[wamp.ID]string // subscription → topic
	regReqs map[wamp.ID]string // REGISTER request → procedure
	regs    map[wamp.ID]string // registration → procedure
}

func (w *wsPeer) tapNoteCall(req wamp.ID, uri string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.tap.calls == nil {
		w.tap.calls = map[wamp.ID]string{}
	}
	if len(w.tap.calls) >= maxTapCalls {
		clear(w.tap.calls)
	}
	w.tap.calls[req] = uri
}

// tapCall returns the procedure of a call, forgetting it when done.
func (w *wsPeer) tapCall(req wamp.ID, done bool) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	uri := w.tap.calls[req]
	if done {
		w.tap.calls = deleteID(w.tap.calls, req)
	}
	return uri
}

// tapNoteRequest remembers the URI of a SUBSCRIBE or REGISTER until its
// answer names the subscription or registration. It runs for every such
// request, watched or not: they are few.
func (w *wsPeer) tapNoteRequest(msg wamp.Message) {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch m := msg.(type) {
	case *wamp.Subscribe:
		w.tap.subReqs = putID(w.tap.subReqs, m.Request, string(m.Topic))
	case *wamp.Register:
		w.tap.regReqs = putID(w.tap.regReqs, m.Request, string(m.Procedure))
	}
}

// tapNoteAnswer names a subscription or registration once SUBSCRIBED or
// REGISTERED goes out, and forgets refused requests.
func (w *wsPeer) tapNoteAnswer(msg wamp.Message) {
	switch m := msg.(type) {
	case *wamp.Subscribed:
		w.mu.Lock()
		if uri, ok := w.tap.subReqs[m.Request]; ok {
			w.tap.subReqs = deleteID(w.tap.subReqs, m.Request)
			w.tap.subs = putID(w.tap.subs, m.Subscription, uri)
		}
		w.mu.Unlock()
	case *wamp.Registered:
		w.mu.Lock()
		if uri, ok := w.tap.regReqs[m.Request]; ok {
			w.tap.regReqs = deleteID(w.tap.regReqs, m.Request)
			w.tap.regs = putID(w.tap.regs, m.Registration, uri)
		}
		w.mu.Unlock()
	case *wamp.Error:
		w.mu.Lock()
		switch m.Type {
		case wamp.SUBSCRIBE:
			w.tap.subReqs = deleteID(w.tap.subReqs, m.Request)
		case wamp.REGISTER:
			w.tap.regReqs = deleteID(w.tap.regReqs, m.Request)
		}
		w.mu.Unlock()
	}
}

func (w *wsPeer) tapSub(id wamp.ID) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tap.subs[id]
}

func (w *wsPeer) tapReg(id wamp.ID) string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.tap.regs[id]
}

// putID sets m[id] = uri, making m when nil and starting afresh when it
// is full (a link that subscribes without end).
func putID(m map[wamp.ID]string, id wamp.ID, uri string) map[wamp.ID]string {
	if m == nil || len(m) >= maxTapCalls {
		m = map[wamp.ID]string{}
	}
	m[id] = uri
	return m
}

// deleteID deletes id from m and returns m, nil once empty: an idle link
// keeps no map of requests answered.
func deleteID(m map[wamp.ID]string, id wamp.ID) map[wamp.ID]string {
	delete(m, id)
	if len(m) == 0 {
		return nil
	}
	return m
}
