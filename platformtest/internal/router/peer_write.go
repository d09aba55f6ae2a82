// This file holds the outbound side of a link. nexus hands a link its
// messages through a small channel (Limits.Handoff) and drops a message
// when the channel is full. The writer takes each message from the
// channel, encodes it (an EVENT once per publication and form, events.go)
// and writes it, one goroutine and one hop as in nexus's own peer; a
// burst goes out in one system call per 64 KiB. While a write blocks (a
// slow client), a pump takes the channel over and queues the encoded
// frames in the outbound queue, bounded in bytes (peer_pump.go,
// outqueue.go); the writer writes what the pump queued before it takes
// the channel back. Only one of them takes from the channel at a time
// (rx), so the order is kept. A link whose queue overflows or whose
// writes time out cannot keep up: it is dropped, with a log line saying
// why. So is a link nexus could not hand a message to (nexusLogger).

package router

import (
	"maps"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Who takes from the router's channel (wsPeer.rx).
const (
	rxIdle   = iota // nobody at the moment
	rxWriter        // the writer waits on it
	rxPump          // a pump empties it into the queue
	rxClosed        // the link is closing: nobody any more
)

// writeLoop is the link's writer: it takes what the router sends, encodes
// it and writes it; what a pump queued meanwhile comes first. Once the
// link closes it writes what is left and ends the link (finish).
func (w *wsPeer) writeLoop() {
	defer w.rt.wg.Done()
	defer w.writerEnd()
	var batch [][]byte
	for {
		var ended bool
		batch, ended = w.out.take(batch[:0])
		if len(batch) > 0 {
			ok := w.writeFrames(batch)
			w.out.release(batch)
			clear(batch)
			if !ok {
				w.closeRx()
				return
			}
			continue
		}
		if ended { // dropped
			w.closeRx()
			_ = w.tc.Close()
			return
		}
		if !w.takeChannel() {
			<-w.out.ready // a pump has the channel: wait for its frames or its end
			continue
		}
		select {
		case msg := <-w.wr:
			w.rx.Store(rxIdle)
			w.tookOne()
			var ok bool
			if len(w.wr) > 0 {
				ok = w.writeBurst(msg)
			} else {
				ok = w.writeOne(msg)
			}
			if !ok {
				w.closeRx()
				return
			}
		case <-w.done:
			w.rx.Store(rxIdle)
			w.finish()
			return
		}
	}
}

// takeChannel makes the writer the one that takes from the router's
// channel; false when a pump has it, or had it and queued frames that
// must be written first (they are older than what the channel holds).
func (w *wsPeer) takeChannel() bool {
	if !w.rx.CompareAndSwap(rxIdle, rxWriter) {
		return false
	}
	if w.out.queued.Load() > 0 {
		w.rx.Store(rxIdle)
		w.out.signal()
		return false
	}
	return true
}

// finish ends a closing link: once no pump runs, it writes what is queued
// and what the router still handed over (the flush deadline bounds it),
// then a close frame, and closes the connection.
func (w *wsPeer) finish() {
	w.closeRx()
	batch, _ := w.out.take(nil)
	ok := w.writeFrames(batch)
	for ok {
		select {
		case msg := <-w.wr:
			if b, enc := w.encode(msg); enc {
				ok = w.writeFrame(b)
			}
			continue
		default:
		}
		msg := websocket.FormatCloseMessage(websocket.CloseNormalClosure, "goodbye")
		_ = w.conn.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeFlushTimeout))
		break
	}
	_ = w.tc.Close()
}

// closeRx takes the channel from the router away for good, once a pump
// that has it has ended; no pump starts after it.
func (w *wsPeer) closeRx() {
	for !w.rx.CompareAndSwap(rxIdle, rxClosed) {
		<-w.out.ready
	}
	// Nobody takes from the channel any more: a sender waiting for room
	// (nexus's broker, say, with the link dropped) must not wait for Close,
	// which nexus calls only after the broker has let the session go.
	w.tookOne()
}

// writeFrames writes frames in order, batched; false when a write failed
// (the link is then closed).
func (w *wsPeer) writeFrames(frames [][]byte) bool {
	if len(frames) == 1 {
		return w.writeFrame(frames[0])
	}
	for len(frames) > 0 {
		w.tc.beginBatch()
		for len(frames) > 0 && w.tc.batched() < maxBatch {
			w.batchFrame(frames[0])
			frames = frames[1:]
		}
		if !w.flush() {
			return false
		}
	}
	return true
}

// writeBurst writes msg and the messages that wait behind it in the
// router's channel with one socket write per 64 KiB (maxBatch), while it
// can take the channel (a pump may have it); false when the write failed
// (the link is then closed).
func (w *wsPeer) writeBurst(msg wamp.Message) bool {
	buf := frameBufs.Get().(*[]byte)
	defer frameBufs.Put(buf)
	w.tc.beginBatch()
	for {
		if b, own, ok := w.encodeTo((*buf)[:0], msg); ok {
			w.batchFrame(b) // copies b
			keepFrameBuf(buf, b, own)
		}
		if w.tc.batched() >= maxBatch || !w.takeChannel() {
			break
		}
		select {
		case msg = <-w.wr:
			w.rx.Store(rxIdle)
			w.tookOne()
			continue
		default:
			w.rx.Store(rxIdle)
		}
		break
	}
	return w.flush()
}

// frameBufs keeps the writer's frame buffers between messages: a frame
// the writer writes at once is copied into the connection's buffer, so
// its buffer serves the next one, and the writer allocates nothing for a
// RESULT (a pump keeps its frames in the queue: they are its own). A
// goroutine that allocates during a collection must help mark (see
// docs/performance.md, "session 8"); a writer that does not, never does.
var frameBufs = sync.Pool{New: func() any { return new([]byte) }}

// maxKeptFrame bounds the frame buffers frameBufs keeps.
const maxKeptFrame = 16 << 10

// keepFrameBuf keeps b, a frame built on *buf, as *buf for the next one,
// when it is the writer's own and not too large.
func keepFrameBuf(buf *[]byte, b []byte, own bool) {
	if own && cap(b) <= maxKeptFrame {
		*buf = b[:0]
	}
}

// writeOne encodes msg on a kept buffer and writes it; false when the
// write failed (the link is then closed).
func (w *wsPeer) writeOne(msg wamp.Message) bool {
	buf := frameBufs.Get().(*[]byte)
	defer frameBufs.Put(buf)
	b, own, ok := w.encodeTo((*buf)[:0], msg)
	if !ok {
		return true
	}
	ok = w.writeFrame(b) // copies b
	keepFrameBuf(buf, b, own)
	return ok
}

// batchFrame frames b into the connection's batch.
func (w *wsPeer) batchFrame(b []byte) {
	_ = w.conn.SetWriteDeadline(w.writeDeadline())
	_ = w.conn.WriteMessage(w.ptype, b) // into the batch: it fails only as the flush does
}

// flush writes the connection's batch within the write timeout; a link
// whose write fails is dropped (a closing link quietly).
func (w *wsPeer) flush() bool {
	w.writing.Store(int64(time.Since(epoch)))
	err := w.tc.flushBatch()
	w.writing.Store(0)
	return w.wrote(err)
}

// writeFrame writes one frame within the write timeout; a link whose
// write fails is dropped (a closing link quietly).
func (w *wsPeer) writeFrame(b []byte) bool {
	_ = w.conn.SetWriteDeadline(w.writeDeadline())
	w.writing.Store(int64(time.Since(epoch)))
	err := w.conn.WriteMessage(w.ptype, b)
	w.writing.Store(0)
	return w.wrote(err)
}

// wrote handles the outcome of a write: false when it failed.
func (w *wsPeer) wrote(err error) bool {
	if err != nil {
		if w.flushBy.Load() == 0 {
			w.drop("a write failed", "err", err)
		}
		w.out.discard()
		_ = w.tc.Close()
		return false
	}
	return true
}

// writerEnd tells the link's reader that writing is over for good.
func (w *wsPeer) writerEnd() { w.writerOnce.Do(func() { close(w.writerDone) }) }

// writeDeadline is the deadline of the next write: the write timeout from
// now, kept for the writes that follow while it is at least nine tenths
// of the timeout away (a frame then has 90 to 100 % of the timeout), and
// no later than the flush deadline once the link is closing. Only the
// writer calls it.
func (w *wsPeer) writeDeadline() time.Time {
	now := time.Now()
	timeout := w.rt.limits.WriteTimeout
	if w.wd.Sub(now) < timeout-timeout/10 {
		w.wd = now.Add(timeout)
	}
	if by := w.flushBy.Load(); by != 0 && by < w.wd.UnixNano() {
		return time.Unix(0, by)
	}
	return w.wd
}

// drop logs, once, why a link that cannot keep up is dropped and lets
// its queued frames go; the caller closes the connection.
func (w *wsPeer) drop(why string, attrs ...any) {
	if !w.dropping.CompareAndSwap(false, true) {
		return
	}
	w.rt.met.slowDrops.Inc()
	w.rt.log.Warn("dropping a link that cannot keep up: "+why,
		append([]any{"peer", w.tc.RemoteAddr().String(), "session", w.sessionID()}, attrs...)...)
	w.out.discard()
}

// lost drops the link after nexus could not hand it a message (its
// channel was full): the message is gone, so the client must not go on
// as if it had everything.
func (w *wsPeer) lost(what string) {
	select {
	case <-w.done:
		return // closing anyway: nobody empties the channel any more
	default:
	}
	w.drop("the router could not hand it a message", "message", what, "channel", cap(w.wr))
	_ = w.tc.hardClose()
}

// encode turns a message of the router into a frame, applying what the
// platform changes on the way out, and counts it (metrics.go); ok is false
// for a message not meant for the client. The frame is the caller's to
// keep.
func (w *wsPeer) encode(msg wamp.Message) (b []byte, ok bool) {
	b, _, ok = w.encodeTo(nil, msg)
	return b, ok
}

// encodeTo is encode building the frame on dst where it builds one; own
// reports whether b is the caller's to reuse (dst's array, grown or not,
// or a new one), not an EVENT's frame other links share (events.go).
func (w *wsPeer) encodeTo(dst []byte, msg wamp.Message) (b []byte, own, ok bool) {
	if b, own, ok = w.encodeFrame(dst, msg); ok {
		w.noteOut(msg, len(b))
	}
	return b, own, ok
}

// encodeFrame is encodeTo without the counting.
func (w *wsPeer) encodeFrame(dst []byte, msg wamp.Message) (b []byte, own, ok bool) {
	switch m := msg.(type) {
	case *wamp.Event:
		b, ok = w.eventOut(m)
		return b, false, ok
	case *wamp.Invocation:
		msg = withInvocationTrace(m)
	case *wamp.Welcome:
		w.rt.sessionJoined(w)
	case *wamp.Subscribed:
		w.noteSubscribeAnswer(m.Request, m.Subscription)
	case *wamp.Unregistered:
		if w.swallowed(m.Request) {
			return nil, false, false
		}
	case *wamp.Error:
		switch m.Type {
		case wamp.SUBSCRIBE:
			w.noteSubscribeAnswer(m.Request, 0)
		case wamp.UNREGISTER, wamp.UNSUBSCRIBE:
			if w.swallowed(m.Request) {
				return nil, false, false
			}
		}
	}
	w.tapNoteAnswer(msg)
	w.tapOut(msg)
	b, ok = w.serializeTo(dst, msg)
	return b, true, ok
}

// serialize encodes msg in the link's serialization: in msgpack the most
// frequent messages straight into their frame (msgpack_direct.go), the
// others through their list (msgpack_list.go), the rest by nexus.
func (w *wsPeer) serialize(msg wamp.Message) ([]byte, bool) { return w.serializeTo(nil, msg) }

// serializeTo is serialize writing a msgpack frame on dst (nil: a new
// one).
func (w *wsPeer) serializeTo(dst []byte, msg wamp.Message) ([]byte, bool) {
	b, err := w.encodeMsg(dst, msg)
	if err != nil {
		w.rt.log.Warn("cannot serialize WAMP message", "type", msg.MessageType().String(), "err", err)
		return nil, false
	}
	return b, true
}

// encodeMsg is serializeTo's encoding.
func (w *wsPeer) encodeMsg(dst []byte, msg wamp.Message) ([]byte, error) {
	if w.json {
		return w.ser.Serialize(jsonOutbound(msg))
	}
	if dst == nil {
		dst = make([]byte, 0, 128)
	}
	if b, ok := appendMessage(dst, msg); ok {
		return b, nil
	}
	if l := msgpackList(msg); l != nil {
		return encodeList(l)
	}
	return w.ser.Serialize(msg)
}

// withInvocationTrace returns inv with the trace context its CALL carried
// in its details (docs/wire.md §13), as a copy; inv itself when the CALL
// carried none.
func withInvocationTrace(inv *wamp.Invocation) wamp.Message {
	tr := realm.TraceOf(inv.Arguments)
	if tr == nil {
		return inv
	}
	c := *inv
	c.Details = make(wamp.Dict, len(inv.Details)+2)
	maps.Copy(c.Details, inv.Details)
	tr.AddTo(c.Details)
	return &c
}
