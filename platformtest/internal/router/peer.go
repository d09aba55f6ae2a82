// This file holds wsPeer, the server side of one WAMP WebSocket link: a
// nexus wamp.Peer over gorilla/websocket with a reader goroutine that hands
// messages to the router, a writer goroutine behind a large outbound queue
// (the router never drops an event), optional server keepalive, the WAMP
// JSON binary convention, and the hooks the platform needs (inbound
// screening of app sessions, injected messages, swallowed answers).

package router

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
)

const (
	outQueueSize      = 1 << 15
	closeFlushTimeout = time.Second     // how long Close lets queued messages out
	pingWriteTimeout  = 5 * time.Second // deadline of one keepalive ping
	injectIDBase      = 1 << 52         // request IDs of injected messages
)

// wsPeer implements wamp.Peer for one WebSocket connection.
type wsPeer struct {
	rt    *Router
	gen   *generation
	conn  *websocket.Conn
	tc    *trackedConn
	json  bool
	ser   serialize.Serializer
	ptype int

	rd chan wamp.Message // to the router, unbuffered
	wr chan wamp.Message // from the router

	done       chan struct{} // closed by Close
	closeOnce  sync.Once
	writerDone chan struct{}
	inStop     chan struct{} // closed when inbound ends
	inStopOnce sync.Once
	rdMu       sync.Mutex // held while sending on rd, so rd is closed safely
	rdClosed   bool

	pendingPings atomic.Int32
	injectSeq    atomic.Uint64

	mu              sync.Mutex
	sess            *session // set once authenticated
	sawFirst        bool
	joinHeld        bool
	swallow         map[wamp.ID]struct{}
	notes           []eventNote      // EVENTs the broker is queueing (events.go)
	subReqs         map[wamp.ID]bool // SUBSCRIBE request → pattern?
	patternSubs     map[wamp.ID]bool // subscription IDs of pattern subscriptions
	pubIdentFeature bool             // the client wants publisher identities
}

func newPeer(rt *Router, conn *websocket.Conn, tc *trackedConn, json bool) *wsPeer {
	w := &wsPeer{
		rt:          rt,
		conn:        conn,
		tc:          tc,
		json:        json,
		rd:          make(chan wamp.Message),
		wr:          make(chan wamp.Message, outQueueSize),
		done:        make(chan struct{}),
		writerDone:  make(chan struct{}),
		inStop:      make(chan struct{}),
		swallow:     map[wamp.ID]struct{}{},
		subReqs:     map[wamp.ID]bool{},
		patternSubs: map[wamp.ID]bool{},
	}
	if json {
		w.ser, w.ptype = &serialize.JSONSerializer{}, websocket.TextMessage
	} else {
		w.ser, w.ptype = &serialize.MessagePackSerializer{}, websocket.BinaryMessage
	}
	w.injectSeq.Store(injectIDBase)
	return w
}

// Recv returns the messages from the client to the router.
func (w *wsPeer) Recv() <-chan wamp.Message { return w.rd }

// Send returns the queue of messages from the router to the client.
func (w *wsPeer) Send() chan<- wamp.Message { return w.wr }

// IsLocal reports false: this is a network client.
func (w *wsPeer) IsLocal() bool { return false }

// Close ends the link: the writer lets queued messages out (bounded by a
// write deadline, so a stuck writer cannot hold it), sends a close frame and
// closes the connection. Close does not block.
func (w *wsPeer) Close() {
	w.closeOnce.Do(func() {
		close(w.done)
		// Unblocks a write stuck on a full socket; the writer sets its own
		// deadline for the flush.
		_ = w.tc.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
		w.closeInbound()
	})
}

func (w *wsPeer) session() *session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sess
}

func (w *wsPeer) setSession(s *session) {
	w.mu.Lock()
	w.sess = s
	w.mu.Unlock()
}

// enqueue puts a message of the platform's own on the outbound queue.
func (w *wsPeer) enqueue(msg wamp.Message) {
	select {
	case w.wr <- msg:
	default:
		w.rt.log.Warn("outbound queue full, message dropped", "type", msg.MessageType().String())
	}
}

// readLoop reads messages from the connection and hands them to the router.
func (w *wsPeer) readLoop() {
	defer w.rt.wg.Done()
	defer func() {
		w.closeInbound()
		w.releaseJoin()
		<-w.writerDone
		w.rt.peerGone(w)
	}()
	w.conn.SetPongHandler(func(string) error {
		w.pendingPings.Store(0)
		return nil
	})
	for {
		_, data, err := w.conn.ReadMessage()
		if err != nil {
			return
		}
		msg, err := w.ser.Deserialize(data)
		if err != nil {
			w.rt.log.Debug("undecodable WAMP message ignored", "err", err)
			continue
		}
		if w.json {
			normalizeJSONInbound(msg)
		}
		if !w.inbound(msg) {
			return
		}
	}
}

// inbound routes one decoded message; false ends the link.
func (w *wsPeer) inbound(msg wamp.Message) bool {
	w.mu.Lock()
	first := !w.sawFirst
	w.sawFirst = true
	w.mu.Unlock()
	switch m := msg.(type) {
	case *wamp.Hello:
		if first {
			w.noteHello(m)
			if !w.rt.holdJoin(w) {
				return false
			}
		}
	case *wamp.Subscribe:
		w.noteSubscribe(m)
	}
	if s := w.session(); s != nil && !w.rt.screenInbound(w, s, msg) {
		return true // answered by the platform, not forwarded
	}
	return w.sendIn(msg)
}

// sendIn hands msg to the router; false once the link is closing.
func (w *wsPeer) sendIn(msg wamp.Message) bool {
	w.rdMu.Lock()
	defer w.rdMu.Unlock()
	if w.rdClosed {
		return false
	}
	select {
	case w.rd <- msg:
		return true
	case <-w.inStop:
		return false
	case <-w.done:
		return false
	}
}

// closeInbound ends the message stream to the router; the router then
// drops the session.
func (w *wsPeer) closeInbound() {
	w.inStopOnce.Do(func() { close(w.inStop) })
	w.rdMu.Lock()
	if !w.rdClosed {
		w.rdClosed = true
		close(w.rd)
	}
	w.rdMu.Unlock()
}

// releaseJoin gives back the shared join lock if this link holds it.
func (w *wsPeer) releaseJoin() {
	w.mu.Lock()
	held := w.joinHeld
	w.joinHeld = false
	w.mu.Unlock()
	if held {
		w.rt.joinLock.RUnlock()
	}
}

// holdJoin takes the shared join lock for w's HELLO, unless the router w
// belongs to is gone.
func (rt *Router) holdJoin(w *wsPeer) bool {
	rt.joinLock.RLock()
	rt.mu.Lock()
	ok := !rt.closed && rt.gen == w.gen
	rt.mu.Unlock()
	select {
	case <-w.done:
		ok = false
	default:
	}
	if !ok {
		rt.joinLock.RUnlock()
		return false
	}
	w.mu.Lock()
	w.joinHeld = true
	w.mu.Unlock()
	return true
}

// writeLoop writes queued messages and keepalive pings.
func (w *wsPeer) writeLoop() {
	defer w.rt.wg.Done()
	defer close(w.writerDone)
	var tick <-chan time.Time
	if ka := w.rt.cfg.Keepalive; ka > 0 {
		t := time.NewTicker(ka)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case msg := <-w.wr:
			if !w.write(msg) {
				_ = w.tc.Close()
				return
			}
		case <-tick:
			if w.pendingPings.Load() >= 2 {
				w.rt.log.Info("closing link that missed two pongs", "peer", w.tc.RemoteAddr().String())
				_ = w.tc.Close()
				return
			}
			w.pendingPings.Add(1)
			err := w.conn.WriteControl(websocket.PingMessage, []byte("keepalive"), time.Now().Add(pingWriteTimeout))
			if err != nil {
				_ = w.tc.Close()
				return
			}
		case <-w.done:
			_ = w.conn.SetWriteDeadline(time.Now().Add(closeFlushTimeout))
			w.flush()
			return
		}
	}
}

// flush writes what is still queued, then a close frame, and closes.
func (w *wsPeer) flush() {
	defer func() { _ = w.tc.Close() }()
	for {
		select {
		case msg := <-w.wr:
			if !w.write(msg) {
				return
			}
		default:
			msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "goodbye")
			_ = w.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeFlushTimeout))
			return
		}
	}
}

// write sends one message; false when the connection failed.
func (w *wsPeer) write(msg wamp.Message) bool {
	switch m := msg.(type) {
	case *wamp.Event:
		msg = w.eventOut(m)
	case *wamp.Welcome:
		w.rt.sessionJoined(w)
	case *wamp.Subscribed:
		w.noteSubscribeAnswer(m.Request, m.Subscription)
	case *wamp.Unregistered:
		if w.swallowed(m.Request) {
			return true
		}
	case *wamp.Error:
		switch m.Type {
		case wamp.SUBSCRIBE:
			w.noteSubscribeAnswer(m.Request, 0)
		case wamp.UNREGISTER, wamp.UNSUBSCRIBE:
			if w.swallowed(m.Request) {
				return true
			}
		}
	}
	if w.json {
		msg = jsonOutbound(msg)
	}
	b, err := w.ser.Serialize(msg)
	if err != nil {
		w.rt.log.Warn("cannot serialize WAMP message", "type", msg.MessageType().String(), "err", err)
		return true
	}
	return w.conn.WriteMessage(w.ptype, b) == nil
}

// nextInjectID returns a request ID for a message the platform injects on
// behalf of the client; it never collides with the client's own IDs in
// practice.
func (w *wsPeer) nextInjectID() wamp.ID { return wamp.ID(w.injectSeq.Add(1)) }

// expectSwallow marks the router's answer to an injected request as not for
// the client.
func (w *wsPeer) expectSwallow(ids ...wamp.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, id := range ids {
		w.swallow[id] = struct{}{}
	}
}

func (w *wsPeer) swallowed(id wamp.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.swallow[id]; ok {
		delete(w.swallow, id)
		return true
	}
	return false
}
