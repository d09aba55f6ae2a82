// This file holds interceptions: faults of single inbound messages of app
// sessions, in the manner of a kfake control hook. An interception matches
// messages by kind, realm and URI (exact or prefix) and fails them with an
// error URI, drops them, delays them on the platform clock, holds them
// until released, or only watches them; it ends after a number of
// messages or when cancelled. Interceptions are checked in the order they
// were made, after the message is recorded and before the router sees it:
// watching ones see the message and pass it on, the first one that acts
// takes it.

package router

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
)

// Fault describes what an interception matches and what it does.
type Fault struct {
	Kind   string // KindPublish, KindCall, KindSubscribe or KindRegister; "" = any
	Realm  string // "" = any realm
	URI    string // topic or procedure as sent; "" = any
	Prefix bool   // URI matches every URI it is a prefix of
	Times  int    // how many messages; 0 = until cancelled

	Fail  string        // answer an ERROR with this URI
	Args  []any         // arguments of that ERROR
	Drop  bool          // swallow: an acknowledged PUBLISH gets PUBLISHED, others nothing
	Delay time.Duration // hold each message this long in platform time first
	Hang  bool          // hold each message until Release or Cancel
}

// Interception is an installed Fault.
type Interception struct {
	rt *Router
	f  Fault

	mu       sync.Mutex
	left     int              // -1: until cancelled
	seen     bounded[Message] // the newest matches (maxSeen)
	matched  int              // every match
	wake     chan struct{}    // closed and replaced at each match
	release  chan struct{}    // closed by Release and Cancel, then replaced
	canceled bool
}

// Intercept installs a fault. A PUBLISH that did not ask for an
// acknowledgement is never answered, whatever the fault.
func (rt *Router) Intercept(f Fault) *Interception {
	f.Args = wirevalue.CloneList(f.Args)
	i := &Interception{rt: rt, f: f, left: f.Times, seen: bounded[Message]{limit: maxSeen}, wake: make(chan struct{}), release: make(chan struct{})}
	if f.Times <= 0 {
		i.left = -1
	}
	rt.mu.Lock()
	rt.interceptions = append(rt.interceptions, i)
	rt.intercepting.Store(int32(len(rt.interceptions)))
	rt.mu.Unlock()
	return i
}

// Cancel ends the interception: it matches no more messages and lets the
// messages it holds go on. Calling it more than once is harmless.
func (i *Interception) Cancel() {
	i.rt.mu.Lock()
	i.rt.interceptions = slices.DeleteFunc(i.rt.interceptions, func(x *Interception) bool { return x == i })
	i.rt.intercepting.Store(int32(len(i.rt.interceptions)))
	i.rt.mu.Unlock()
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.canceled {
		i.canceled = true
		close(i.release)
	}
}

// Release lets the messages held so far go on; later matches are held
// again.
func (i *Interception) Release() {
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.canceled {
		close(i.release)
		i.release = make(chan struct{})
	}
}

// Seen returns copies of the messages the interception matched, oldest
// first: the newest 10000 (an interception kept for hours, a console
// fault, would otherwise grow without end).
func (i *Interception) Seen() []Message {
	i.mu.Lock()
	defer i.mu.Unlock()
	seen := i.seen.all()
	out := make([]Message, len(seen))
	for n, m := range seen {
		out[n] = m.clone()
	}
	return out
}

// Wait returns once n messages have matched, or ctx.Err().
func (i *Interception) Wait(ctx context.Context, n int) error {
	for {
		i.mu.Lock()
		got, wake := i.matched, i.wake
		i.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (i *Interception) matches(m *Message) bool {
	f := &i.f
	if (f.Kind != "" && f.Kind != m.Kind) || (f.Realm != "" && f.Realm != m.Realm) {
		return false
	}
	if f.Prefix {
		return strings.HasPrefix(m.URI, f.URI)
	}
	return f.URI == "" || f.URI == m.URI
}

// take notes m with every interception that matches it, up to and
// including the first that acts on it (a fault with Fail, Drop, Delay or
// Hang), using each up once, and returns that one; nil when none acts.
// Watching interceptions pass the message on.
func (rt *Router) take(m *Message) *Interception {
	if rt.intercepting.Load() == 0 {
		return nil
	}
	rt.mu.Lock()
	var hits []*Interception
	var acting *Interception
	for n := 0; n < len(rt.interceptions) && acting == nil; n++ {
		i := rt.interceptions[n]
		if !i.matches(m) {
			continue
		}
		if i.left > 0 {
			i.left--
			if i.left == 0 {
				rt.interceptions = slices.Delete(rt.interceptions, n, n+1)
				rt.intercepting.Store(int32(len(rt.interceptions)))
				n--
			}
		}
		hits = append(hits, i)
		if i.acts() {
			acting = i
		}
	}
	rt.mu.Unlock()
	for _, i := range hits {
		i.mu.Lock()
		i.seen.add(m.clone())
		i.matched++
		close(i.wake)
		i.wake = make(chan struct{})
		i.mu.Unlock()
	}
	return acting
}

// acts reports whether the fault does something to a message rather than
// only watching it.
func (i *Interception) acts() bool {
	f := &i.f
	return f.Fail != "" || f.Drop || f.Delay > 0 || f.Hang
}

// apply carries out i's fault on msg from w; it reports whether msg goes
// on to the router now (after forward, which readies it). A held message
// goes on (or fails) later from a goroutine of its own.
func (i *Interception) apply(w *wsPeer, msg wamp.Message, forward func() bool) bool {
	f := &i.f
	if f.Delay <= 0 && !f.Hang {
		return i.finish(w, msg) && forward()
	}
	i.mu.Lock()
	release := i.release
	i.mu.Unlock()
	var delay <-chan time.Time
	if f.Delay > 0 {
		delay = i.rt.clock.After(f.Delay)
	}
	if !f.Hang {
		release = nil
	}
	rt := i.rt
	rt.wg.Add(1)
	go func() {
		defer rt.wg.Done()
		if delay != nil {
			select {
			case <-delay:
			case <-release:
			case <-w.done:
				return
			}
		}
		if f.Hang {
			select {
			case <-release:
			case <-w.done:
				return
			}
		}
		if i.finish(w, msg) && forward() {
			w.sendIn(msg)
		}
	}()
	return false
}

// finish fails or drops msg as the fault says; true when msg goes on.
func (i *Interception) finish(w *wsPeer, msg wamp.Message) bool {
	f := &i.f
	req, ack := requestOf(msg)
	switch {
	case f.Fail != "":
		if ack {
			w.enqueue(&wamp.Error{Type: msg.MessageType(), Request: req, Details: wamp.Dict{},
				Error: wamp.URI(f.Fail), Arguments: wirevalue.CloneList(f.Args)})
		}
		return false
	case f.Drop:
		if _, ok := msg.(*wamp.Publish); ok && ack {
			w.enqueue(&wamp.Published{Request: req, Publication: wamp.GlobalID()})
		}
		return false
	}
	return true
}

// requestOf returns the request ID of msg and whether its sender expects
// an answer.
func requestOf(msg wamp.Message) (wamp.ID, bool) {
	switch m := msg.(type) {
	case *wamp.Publish:
		ack, _ := m.Options[wire.OptAcknowledge].(bool)
		return m.Request, ack
	case *wamp.Call:
		return m.Request, true
	case *wamp.Subscribe:
		return m.Request, true
	case *wamp.Register:
		return m.Request, true
	}
	return 0, false
}

// clone returns a copy of m sharing nothing mutable.
func (m Message) clone() Message {
	m.Args = wirevalue.CloneList(m.Args)
	m.Kwargs = wirevalue.CloneDict(m.Kwargs)
	m.Options = wirevalue.CloneDict(m.Options)
	return m
}
