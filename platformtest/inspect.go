// This file holds inspection: the sessions the platform admitted, the
// recorded inbound messages of app sessions and the authentication log.
// Everything is returned as copies.

package platformtest

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wirevalue"
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
	stage      Stage
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
	Stage      Stage
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

// Kinds of recorded messages.
const (
	KindPublish   = "publish"
	KindCall      = "call"
	KindSubscribe = "subscribe"
	KindRegister  = "register"
)

// Sessions returns the joined network sessions, oldest first.
func (p *Platform) Sessions() []SessionInfo {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []SessionInfo
	for _, s := range p.sessions {
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
func (p *Platform) WaitSessions(ctx context.Context, realm string, n int) error {
	for {
		p.mu.Lock()
		count := 0
		for _, s := range p.sessions {
			if s.active && (realm == "" || s.realm.Name == realm) {
				count++
			}
		}
		closed, wake := p.closed, p.sessWake
		p.mu.Unlock()
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

func (p *Platform) wakeSessionsLocked() {
	close(p.sessWake)
	p.sessWake = make(chan struct{})
}

// sessionJoined marks w's session active: its WELCOME is going out.
func (p *Platform) sessionJoined(w *wsPeer) {
	s := w.session()
	if s == nil {
		return
	}
	now := p.clock.Now()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions[s.id] == s {
		s.joined, s.active = now, true
		p.wakeSessionsLocked()
	}
}

// peerGone forgets a connection whose goroutines have ended.
func (p *Platform) peerGone(w *wsPeer) {
	s := w.session()
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.peers, w)
	if s != nil && p.sessions[s.id] == s {
		delete(p.sessions, s.id)
		p.wakeSessionsLocked()
	}
}

// sessionByID returns the session with the given ID, or nil.
func (p *Platform) sessionByID(id uint64) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[id]
}

// record appends an inbound message of an app session to the recording.
func (p *Platform) record(s *session, msg wamp.Message) {
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
		return
	}
	m.Args = cloneList(m.Args)
	m.Kwargs = cloneDict(m.Kwargs)
	m.Options = cloneDict(m.Options)
	m.Realm, m.Session, m.AuthID, m.Time = s.realm.Name, s.id, s.authID, p.clock.Now()
	p.mu.Lock()
	p.recorded = append(p.recorded, m)
	p.mu.Unlock()
}

// Recorded returns every recorded inbound message of app sessions, oldest
// first: publications, calls, subscriptions and registrations as the
// clients sent them (before authorization and refusals). Values are
// normalised (int64, float64, string, bool, []byte, []any, map[string]any)
// and copied.
func (p *Platform) Recorded() []Message { return p.recordedOf("") }

// Publications returns the recorded publications.
func (p *Platform) Publications() []Message { return p.recordedOf(KindPublish) }

// Calls returns the recorded calls.
func (p *Platform) Calls() []Message { return p.recordedOf(KindCall) }

// ClearRecorded forgets the recorded messages.
func (p *Platform) ClearRecorded() {
	p.mu.Lock()
	p.recorded = nil
	p.mu.Unlock()
}

func (p *Platform) recordedOf(kind string) []Message {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Message
	for _, m := range p.recorded {
		if kind != "" && m.Kind != kind {
			continue
		}
		m.Args = cloneList(m.Args)
		m.Kwargs = cloneDict(m.Kwargs)
		m.Options = cloneDict(m.Options)
		out = append(out, m)
	}
	return out
}

// AuthLog returns the authentication log, oldest first.
func (p *Platform) AuthLog() []AuthAttempt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.authLog)
}

// cloneList returns a deep, normalised copy of a payload list.
func cloneList(l []any) []any {
	if l == nil {
		return nil
	}
	return wirevalue.Normalize(deepCopy(l), false).([]any)
}

// cloneDict returns a deep, normalised copy of a payload dictionary.
func cloneDict(d map[string]any) map[string]any {
	if d == nil {
		return nil
	}
	return wirevalue.Normalize(deepCopy(d), false).(map[string]any)
}

// deepCopy copies maps, lists and byte slices recursively; nexus's named
// container types become plain ones.
func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case wamp.Dict:
		return deepCopy(map[string]any(x))
	case map[any]any:
		m := make(map[any]any, len(x))
		for k, e := range x {
			m[k] = deepCopy(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = deepCopy(e)
		}
		return l
	case wamp.List:
		return deepCopy([]any(x))
	case []byte:
		return slices.Clone(x)
	default:
		return v
	}
}
