// This file holds the outbound side of a link. The pump takes every
// message the router sends at once (nexus drops an EVENT for a peer whose
// channel is full, so the channel must never fill), encodes it and queues
// the frame; the writer writes queued frames, each with a deadline; the
// pinger sends keepalive pings on its own, so a blocked write cannot stop
// them. A link whose queue overflows (by count or bytes) or whose writes
// time out cannot keep up: it is dropped, with a log line saying why.

package router

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/wamp"
)

// outQueue is a FIFO of encoded frames bounded by count and bytes.
type outQueue struct {
	maxMsgs, maxBytes int

	mu     sync.Mutex
	frames [][]byte
	head   int
	bytes  int
	ended  bool          // no more frames: flush what is left, then stop
	ready  chan struct{} // holds a token while frames may be waiting
	peak   atomic.Int64  // the most bytes ever queued, for tests
}

func newOutQueue(maxMsgs, maxBytes int) *outQueue {
	return &outQueue{maxMsgs: maxMsgs, maxBytes: maxBytes, ready: make(chan struct{}, 1)}
}

// push queues a frame; false when the queue is full or has ended.
func (q *outQueue) push(b []byte) bool {
	q.mu.Lock()
	n := len(q.frames) - q.head
	if q.ended || (n > 0 && (n >= q.maxMsgs || q.bytes+len(b) > q.maxBytes)) {
		q.mu.Unlock()
		return false
	}
	q.frames = append(q.frames, b)
	q.bytes += len(b)
	if int64(q.bytes) > q.peak.Load() {
		q.peak.Store(int64(q.bytes))
	}
	q.mu.Unlock()
	q.signal()
	return true
}

// pop returns the next frame; ok is false when the queue is empty, and
// ended tells that no frame will come any more.
func (q *outQueue) pop() (b []byte, ok, ended bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head == len(q.frames) {
		return nil, false, q.ended
	}
	b = q.frames[q.head]
	q.frames[q.head] = nil
	q.head++
	q.bytes -= len(b)
	if q.head == len(q.frames) {
		q.frames, q.head = q.frames[:0], 0
	}
	return b, true, false
}

// end marks the queue finished: frames queued so far are still popped.
func (q *outQueue) end() {
	q.mu.Lock()
	q.ended = true
	q.mu.Unlock()
	q.signal()
}

// discard drops every queued frame and ends the queue.
func (q *outQueue) discard() {
	q.mu.Lock()
	q.frames, q.head, q.bytes, q.ended = nil, 0, 0, true
	q.mu.Unlock()
	q.signal()
}

func (q *outQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

// pumpLoop moves what the router sends into the queue, encoded, until the
// link closes; then it queues what is left and ends the queue.
func (w *wsPeer) pumpLoop() {
	defer w.rt.wg.Done()
	for {
		select {
		case msg := <-w.wr:
			w.queue(msg)
		case <-w.done:
			for {
				select {
				case msg := <-w.wr:
					w.queue(msg)
				default:
					w.out.end()
					return
				}
			}
		}
	}
}

// queue encodes msg and queues its frame; a full queue drops the link.
func (w *wsPeer) queue(msg wamp.Message) {
	b, ok := w.encode(msg)
	if !ok || w.out.push(b) {
		return
	}
	if w.dropping.CompareAndSwap(false, true) {
		w.out.mu.Lock()
		n, size := len(w.out.frames)-w.out.head, w.out.bytes
		w.out.mu.Unlock()
		w.rt.log.Warn("dropping a link that cannot keep up: its outbound queue is full",
			"peer", w.tc.RemoteAddr().String(), "session", w.sessionID(), "queued", n, "queued_bytes", size,
			"max_queued", w.out.maxMsgs, "max_queued_bytes", w.out.maxBytes)
		w.out.discard()
		_ = w.tc.hardClose()
	}
}

// writeLoop writes queued frames, each within the write timeout, and ends
// with a close frame once the queue has ended.
func (w *wsPeer) writeLoop() {
	defer w.rt.wg.Done()
	defer close(w.writerDone)
	for {
		b, ok, ended := w.out.pop()
		switch {
		case ok:
			_ = w.conn.SetWriteDeadline(w.writeDeadline())
			if err := w.conn.WriteMessage(w.ptype, b); err != nil {
				if w.flushBy.Load() == 0 && w.dropping.CompareAndSwap(false, true) {
					w.rt.log.Warn("dropping a link that cannot keep up: a write failed",
						"peer", w.tc.RemoteAddr().String(), "session", w.sessionID(), "err", err)
				}
				w.out.discard()
				_ = w.tc.Close()
				return
			}
		case ended:
			msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "goodbye")
			_ = w.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeFlushTimeout))
			_ = w.tc.Close()
			return
		default:
			<-w.out.ready
		}
	}
}

// writeDeadline is the deadline of the next write: the write timeout from
// now, but no later than the flush deadline once the link is closing.
func (w *wsPeer) writeDeadline() time.Time {
	d := time.Now().Add(w.rt.limits.WriteTimeout)
	if by := w.flushBy.Load(); by != 0 && by < d.UnixNano() {
		return time.Unix(0, by)
	}
	return d
}

// pingLoop pings the client every keepalive interval; a link that missed
// two pongs is closed.
func (w *wsPeer) pingLoop() {
	defer w.rt.wg.Done()
	ka := w.rt.cfg.Keepalive
	if ka <= 0 {
		return
	}
	t := time.NewTicker(ka)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if w.pendingPings.Load() >= 2 {
				w.rt.log.Info("closing link that missed two pongs", "peer", w.tc.RemoteAddr().String(), "session", w.sessionID())
				_ = w.tc.Close()
				return
			}
			w.pendingPings.Add(1)
			err := w.conn.WriteControl(websocket.PingMessage, []byte("keepalive"), time.Now().Add(w.rt.limits.PingTimeout))
			if err != nil {
				if w.flushBy.Load() == 0 && w.dropping.CompareAndSwap(false, true) {
					w.rt.log.Warn("dropping a link that cannot keep up: the keepalive ping could not be written",
						"peer", w.tc.RemoteAddr().String(), "session", w.sessionID(), "timeout", w.rt.limits.PingTimeout, "err", err)
				}
				_ = w.tc.Close()
				return
			}
		case <-w.done:
			return
		}
	}
}

// encode turns a message of the router into a frame, applying what the
// platform changes on the way out; ok is false for a message not meant for
// the client.
func (w *wsPeer) encode(msg wamp.Message) (b []byte, ok bool) {
	switch m := msg.(type) {
	case *wamp.Event:
		msg = w.eventOut(m)
	case *wamp.Welcome:
		w.rt.sessionJoined(w)
	case *wamp.Subscribed:
		w.noteSubscribeAnswer(m.Request, m.Subscription)
	case *wamp.Unregistered:
		if w.swallowed(m.Request) {
			return nil, false
		}
	case *wamp.Error:
		switch m.Type {
		case wamp.SUBSCRIBE:
			w.noteSubscribeAnswer(m.Request, 0)
		case wamp.UNREGISTER, wamp.UNSUBSCRIBE:
			if w.swallowed(m.Request) {
				return nil, false
			}
		}
	}
	w.tapNoteAnswer(msg)
	w.tapOut(msg)
	if w.json {
		msg = jsonOutbound(msg)
	}
	b, err := w.ser.Serialize(msg)
	if err != nil {
		w.rt.log.Warn("cannot serialize WAMP message", "type", msg.MessageType().String(), "err", err)
		return nil, false
	}
	return b, true
}
