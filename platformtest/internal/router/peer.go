// This file holds wsPeer, the server side of one WAMP WebSocket link: a
// nexus wamp.Peer over gorilla/websocket. Two goroutines serve a link: the
// reader hands messages to the router (peer_read.go); the writer encodes
// and writes what the router sends (peer_write.go), with a pump queueing
// it while a write blocks (peer_pump.go); a timer pings the client
// (peer_ping.go). A link that cannot keep up is dropped. This file holds
// the peer itself and the hooks the platform needs (injected messages,
// swallowed answers).

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
	closeFlushTimeout = time.Second // how long Close lets queued messages out
	injectIDBase      = 1 << 52     // request IDs of injected messages
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
	wr chan wamp.Message // from the router (Limits.Handoff)

	// Senders waiting for room in wr (awaitRoom) wait for room to close;
	// the writer or the pump closes and replaces it after each message it
	// takes while somebody waits (tookOne).
	roomWaiters atomic.Int32
	roomMu      sync.Mutex
	room        chan struct{}

	rx         atomic.Int32  // who takes from wr: rxIdle, rxWriter, rxPump or rxClosed (peer_write.go)
	writing    atomic.Int64  // since epoch, when the write in progress started; 0: none (peer_pump.go)
	out        *outQueue     // encoded frames a pump queued (outqueue.go)
	done       chan struct{} // closed by Close
	closeOnce  sync.Once
	writerDone chan struct{} // closed when the writer has ended (writerEnd)
	writerOnce sync.Once
	wd         time.Time     // the writer's write deadline (writeDeadline)
	inStop     chan struct{} // closed when inbound ends
	inStopOnce sync.Once
	rdMu       sync.Mutex // held while sending on rd, so rd is closed safely
	rdClosed   bool

	pendingPings atomic.Int32
	pingMu       sync.Mutex  // guards pingT and pingStopped (peer_ping.go)
	pingT        *time.Timer // the next ping
	pingStopped  bool
	pingDone     sync.Once
	injectSeq    atomic.Uint64
	dropping     atomic.Bool  // the link is being dropped for not keeping up
	flushBy      atomic.Int64 // Unix nanoseconds by which a closing link's queue must be out

	mu              sync.Mutex
	sess            *session // set once authenticated
	sawFirst        bool
	joinHeld        bool
	swallow         map[wamp.ID]struct{}
	subReqs         map[wamp.ID]bool        // SUBSCRIBE request → pattern?
	patternSubs     map[wamp.ID]bool        // subscription IDs of pattern subscriptions
	pubIdentFeature bool                    // the client wants publisher identities
	tap             tapState                // URIs of outbound messages, for the traffic tap (tap.go)
	pending         map[reqKey]pendingReq   // calls and acknowledged publications awaiting their answer (metrics.go)
	demand          map[demandKey]struct{}  // what the link counts in its realm's Demand (demand.go)
	demandDropped   bool                    // the link ended and took its counts away
	direct          map[wamp.ID]*directCall // calls the router serves itself, until answered (direct.go)
}

func newPeer(rt *Router, conn *websocket.Conn, tc *trackedConn, json bool) *wsPeer {
	w := &wsPeer{
		rt:   rt,
		conn: conn,
		tc:   tc,
		json: json,
		rd:   make(chan wamp.Message),
		wr:   make(chan wamp.Message, rt.limits.Handoff),
		room: make(chan struct{}),

		done:       make(chan struct{}),
		writerDone: make(chan struct{}),
		inStop:     make(chan struct{}),
		// swallow and subReqs are made when first needed.
		patternSubs: map[wamp.ID]bool{},
	}
	if json {
		w.ser, w.ptype = &serialize.JSONSerializer{}, websocket.TextMessage
	} else {
		w.ser, w.ptype = &serialize.MessagePackSerializer{}, websocket.BinaryMessage
	}
	w.out = newOutQueue(rt.limits.QueueBytes)
	w.injectSeq.Store(injectIDBase)
	return w
}

// Recv returns the messages from the client to the router.
func (w *wsPeer) Recv() <-chan wamp.Message { return w.rd }

// Send returns the channel of messages from the router to the client,
// once it has room (awaitRoom), starting a pump when the writer is stuck
// in a write (slowWriter): nexus calls it for every message and drops the
// message when the channel is full.
func (w *wsPeer) Send() chan<- wamp.Message {
	w.slowWriter()
	w.awaitRoom()
	return w.wr
}

// IsLocal reports false: this is a network client.
func (w *wsPeer) IsLocal() bool { return false }

// Close ends the link: the writer lets queued messages out (bounded by a
// write deadline, so a stuck writer cannot hold it), sends a close frame and
// closes the connection. Close does not block.
func (w *wsPeer) Close() {
	w.closeOnce.Do(func() {
		by := time.Now().Add(closeFlushTimeout)
		w.flushBy.Store(by.UnixNano())
		close(w.done)
		w.stopPinger()
		// Unblocks a write stuck on a full socket.
		_ = w.tc.SetWriteDeadline(by)
		w.closeInbound()
	})
}

func (w *wsPeer) session() *session {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.sess
}

// sessionID returns the ID of the link's session, 0 before it is admitted.
func (w *wsPeer) sessionID() uint64 {
	if s := w.session(); s != nil {
		return s.id
	}
	return 0
}

func (w *wsPeer) setSession(s *session) {
	w.mu.Lock()
	w.sess = s
	w.mu.Unlock()
}

// enqueue hands a message of the platform's own to the link, as the
// router does (Send), unless the link is closing.
func (w *wsPeer) enqueue(msg wamp.Message) {
	for {
		w.awaitRoom()
		select {
		case w.wr <- msg:
			return
		case <-w.done:
			return
		default: // another sender took the room
		}
	}
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

// nextInjectID returns a request ID for a message the platform injects on
// behalf of the client; it never collides with the client's own IDs in
// practice.
func (w *wsPeer) nextInjectID() wamp.ID { return wamp.ID(w.injectSeq.Add(1)) }

// expectSwallow marks the router's answer to an injected request as not for
// the client.
func (w *wsPeer) expectSwallow(ids ...wamp.ID) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.swallow == nil {
		w.swallow = map[wamp.ID]struct{}{}
	}
	for _, id := range ids {
		w.swallow[id] = struct{}{}
	}
}

func (w *wsPeer) swallowed(id wamp.ID) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.swallow[id]; ok {
		delete(w.swallow, id)
		if len(w.swallow) == 0 {
			w.swallow = nil
		}
		return true
	}
	return false
}
