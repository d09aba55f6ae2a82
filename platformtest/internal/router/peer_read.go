// This file holds the inbound side of a link: the reader, which decodes
// each message and hands it to the router, and the answers to what cannot
// be decoded (WAMP's protocol violations): an ERROR when the request can
// be read, else ABORT wamp.error.protocol_violation and the end of the
// link. Before its session is admitted a link may send only
// Limits.PreAuthBytes (server.go).

package router

import (
	"errors"
	"fmt"

	"github.com/gorilla/websocket"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
)

// readLoop reads messages from the connection and hands them to the router.
func (w *wsPeer) readLoop() {
	defer w.rt.wg.Done()
	defer func() {
		w.closeInbound()
		w.releaseJoin()
		w.tc.settle(w.rt)
		<-w.writerDone
		w.dropDemand()
		w.rt.peerGone(w)
	}()
	w.conn.SetPongHandler(func(string) error {
		w.pendingPings.Store(0)
		return nil
	})
	for {
		w.tc.lr.wait() // an idle link waits here, on a short stack
		buf := inBuffers.Get().(*[]byte)
		if !w.readOne(buf) {
			return
		}
	}
}

// readOne reads, decodes and routes one message in buf, which goes back to
// inBuffers once the message is routed (nothing keeps the frame: the
// recording copies what it keeps); false ends the link.
func (w *wsPeer) readOne(buf *[]byte) bool {
	defer putInBuffer(buf)
	data, err := w.nextMessage(buf)
	if err != nil {
		switch {
		case errors.Is(err, websocket.ErrReadLimit):
			w.rt.log.Warn("closing link: message over the size limit", "peer", w.tc.RemoteAddr().String(),
				"session", w.sessionID(), "limit", w.rt.limits.MaxMessageBytes)
		case errors.Is(err, errPreAuthLimit):
			w.rt.log.Warn("closing link: too much sent before authentication", "peer", w.tc.RemoteAddr().String(),
				"limit", w.rt.limits.PreAuthBytes)
		}
		return false
	}
	var msg wamp.Message
	if w.json {
		msg, err = w.ser.Deserialize(data)
	} else {
		msg, err = decodeMsgpack(w.ser, data) // msgpack_in.go
	}
	if err != nil {
		return w.undecodable(data, err)
	}
	if w.json {
		normalizeJSONInbound(msg)
	}
	return w.inbound(msg, data)
}

// inbound routes one decoded message, which arrived in frame; false ends
// the link.
func (w *wsPeer) inbound(msg wamp.Message, frame []byte) bool {
	w.noteIn(msg, len(frame))
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
		w.tapNoteRequest(m)
	case *wamp.Register:
		w.tapNoteRequest(m)
	}
	if s := w.session(); s != nil && !w.rt.screenInbound(w, s, msg, frame) {
		return true // answered by the platform, not forwarded
	}
	return w.sendIn(msg)
}

// requestTypes are the messages a client sends with a request ID the
// router answers: an undecodable one gets an ERROR.
var requestTypes = map[wamp.MessageType]bool{
	wamp.PUBLISH: true, wamp.SUBSCRIBE: true, wamp.UNSUBSCRIBE: true,
	wamp.CALL: true, wamp.REGISTER: true, wamp.UNREGISTER: true,
}

// undecodable answers a message that could not be decoded, reporting
// whether the link goes on: a request of a joined session whose type and
// request ID can be read gets ERROR wamp.error.invalid_argument (an
// unacknowledged PUBLISH nothing); anything else ends the link with ABORT
// wamp.error.protocol_violation.
func (w *wsPeer) undecodable(data []byte, cause error) bool {
	var raw []any
	_ = w.ser.DeserializeDataItem(data, &raw)
	var typ wamp.MessageType
	var req wamp.ID
	if len(raw) >= 2 {
		if t, ok := wamp.AsInt64(raw[0]); ok {
			typ = wamp.MessageType(t)
		}
		req, _ = wamp.AsID(raw[1])
	}
	if w.session() != nil && requestTypes[typ] && req != 0 {
		w.rt.log.Debug("undecodable request refused", "session", w.sessionID(), "type", typ.String(), "err", cause)
		if typ == wamp.PUBLISH && !acknowledged(raw) {
			return true
		}
		w.enqueue(&wamp.Error{Type: typ, Request: req, Details: wamp.Dict{}, Error: wire.ErrInvalidArgument,
			Arguments: wamp.List{fmt.Sprintf("cannot decode the %s message: %v", typ, cause)}})
		return true
	}
	w.rt.log.Info("closing link: protocol violation", "peer", w.tc.RemoteAddr().String(),
		"session", w.sessionID(), "err", cause)
	w.enqueue(&wamp.Abort{Reason: wamp.ErrProtocolViolation, Details: wamp.Dict{
		wamp.OptMessage: fmt.Sprintf("cannot decode the message: %v", cause)}})
	w.Close()
	return false
}

// acknowledged reports whether the raw PUBLISH [16, id, options, …] asks
// for an acknowledgement.
func acknowledged(raw []any) bool {
	if len(raw) < 3 {
		return false
	}
	opts, _ := wamp.AsDict(raw[2])
	ack, _ := opts[wire.OptAcknowledge].(bool)
	return ack
}
