// This file holds the sessions the router admitted (with their links and
// their join times), the recording of the inbound messages of app sessions
// and the authentication log. Everything is handed out as copies.

package router

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// session is an admitted network session.
type session struct {
	id         uint64
	realm      realm.Info
	authID     string // as rewritten: the device serial
	authIDSent string
	role       string
	device     *registry.Device // immutable fields only outside the registry's lock
	app        *registry.App
	stage      string
	peer       *wsPeer
	joined     time.Time // set when WELCOME goes out
	active     bool
}

// SessionInfo describes a joined session.
type SessionInfo struct {
	ID         uint64
	Realm      string
	AuthID     string // the authid the router reports: the device serial
	AuthIDSent string // the authid the client sent in HELLO
	AuthRole   string
	Serial     string
	DeviceKey  int
	AppKey     int // app of the credential
	Stage      string
	Joined     time.Time // platform time
}

// Message is an inbound message of an app session, as recorded.
type Message struct {
	Kind    string // publish, call, subscribe or register
	Realm   string
	URI     string
	Args    []any
	Kwargs  map[string]any
	Options map[string]any
	Session uint64
	AuthID  string // the session's authid: the device serial
	Time    time.Time
}

// Kinds of inbound messages the router records and intercepts.
const (
	KindPublish   = "publish"
	KindCall      = "call"
	KindSubscribe = "subscribe"
	KindRegister  = "register"
)

// Sessions returns the joined network sessions, oldest first.
func (rt *Router) Sessions() []SessionInfo {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	var out []SessionInfo
	for _, s := range rt.sessions {
		if !s.active {
			continue
		}
		info := SessionInfo{
			ID: s.id, Realm: s.realm.Name, AuthID: s.authID, AuthIDSent: s.authIDSent,
			AuthRole: s.role, Serial: s.device.Serial, DeviceKey: s.device.Key,
			Stage: s.stage, Joined: s.joined,
		}
		if s.app != nil {
			info.AppKey = s.app.Key
		}
		out = append(out, info)
	}
	slices.SortFunc(out, func(a, b SessionInfo) int {
		if c := a.Joined.Compare(b.Joined); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return out
}

// WaitSessions waits until at least n sessions are joined on realm (any
// realm when realm is ""). It returns ctx.Err() when ctx ends first and an
// error when the platform closes.
func (rt *Router) WaitSessions(ctx context.Context, realm string, n int) error {
	for {
		rt.mu.Lock()
		count := 0
		for _, s := range rt.sessions {
			if s.active && (realm == "" || s.realm.Name == realm) {
				count++
			}
		}
		closed, wake := rt.closed, rt.sessWake
		rt.mu.Unlock()
		if count >= n {
			return nil
		}
		if closed {
			return errors.New("platformtest: platform closed")
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitGone waits until the router has forgotten session id (its link
// ended), or ctx ends.
func (rt *Router) WaitGone(ctx context.Context, id uint64) error {
	for {
		rt.mu.Lock()
		_, present := rt.sessions[id]
		wake := rt.sessWake
		rt.mu.Unlock()
		if !present {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (rt *Router) wakeSessionsLocked() {
	close(rt.sessWake)
	rt.sessWake = make(chan struct{})
}

// sessionJoined marks w's session active: its WELCOME is going out.
func (rt *Router) sessionJoined(w *wsPeer) {
	s := w.session()
	if s == nil {
		return
	}
	now := rt.clock.Now()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.sessions[s.id] == s {
		if !s.active {
			rt.countSessionLocked(s, 1) // metrics.go
		}
		s.joined, s.active = now, true
		rt.wakeSessionsLocked()
	}
}

// peerGone forgets a connection whose goroutines have ended.
func (rt *Router) peerGone(w *wsPeer) {
	s := w.session()
	rt.mu.Lock()
	defer rt.mu.Unlock()
	delete(rt.peers, w)
	if s != nil && rt.sessions[s.id] == s {
		delete(rt.sessions, s.id)
		if s.active {
			rt.countSessionLocked(s, -1) // metrics.go
		}
		rt.byID.CompareAndDelete(s.id, s)
		rt.wakeSessionsLocked()
	}
}

// sessionByID returns the session with the given ID, or nil. It takes no
// lock: the authorizer asks for every message.
func (rt *Router) sessionByID(id uint64) *session {
	if s, ok := rt.byID.Load(id); ok {
		return s.(*session)
	}
	return nil
}

// linkOf returns the link of network session id, or nil. It takes no lock:
// the publish filter asks for every subscriber of every publication.
func (rt *Router) linkOf(id wamp.ID) *wsPeer {
	if s := rt.sessionByID(uint64(id)); s != nil {
		return s.peer
	}
	return nil
}

// record appends an inbound message of an app session, which arrived in
// frame, to the recording and returns it (sharing msg's payload); false
// for a message that is not recorded (anything but PUBLISH, CALL,
// SUBSCRIBE and REGISTER).
func (rt *Router) record(s *session, msg wamp.Message, frame []byte, json bool) (Message, bool) {
	var m Message
	switch x := msg.(type) {
	case *wamp.Publish:
		m = Message{Kind: KindPublish, URI: string(x.Topic), Args: x.Arguments, Kwargs: x.ArgumentsKw, Options: x.Options}
	case *wamp.Call:
		m = Message{Kind: KindCall, URI: string(x.Procedure), Args: x.Arguments, Kwargs: x.ArgumentsKw, Options: x.Options}
	case *wamp.Subscribe:
		m = Message{Kind: KindSubscribe, URI: string(x.Topic), Options: x.Options}
	case *wamp.Register:
		m = Message{Kind: KindRegister, URI: string(x.Procedure), Options: x.Options}
	default:
		return Message{}, false
	}
	m.Realm, m.Session, m.AuthID, m.Time = s.realm.Name, s.id, s.authID, rt.clock.Now()
	rt.rec.add(recorded{kind: m.Kind, realm: m.Realm, uri: m.URI, session: m.Session, authID: m.AuthID, time: m.Time,
		frame: frame, json: json})
	return m, true
}

// ClearRecorded forgets the recorded messages.
func (rt *Router) ClearRecorded() { rt.rec.clear() }

// Recorded returns the recorded inbound messages of app sessions of one
// kind ("" for all), oldest first, as the clients sent them (before
// authorization and faults), normalised and copied.
func (rt *Router) Recorded(kind string) []Message { return rt.rec.all(kind) }

// AuthLog returns the authentication log, oldest first: the newest
// attempts within the bound (Config.AuthLog).
func (rt *Router) AuthLog() []AuthAttempt {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return slices.Clone(rt.authLog.all())
}

// AuthLogLimit returns the bound of the authentication log.
func (rt *Router) AuthLogLimit() int { return rt.authLog.limit }

// AuthLogDropped returns how many attempts the authentication log let go
// to stay within its bound.
func (rt *Router) AuthLogDropped() int64 {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return rt.authLog.lost()
}
