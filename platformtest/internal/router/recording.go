// This file holds the recording of the inbound messages of app sessions:
// a ring that keeps the newest messages within a count and a byte budget
// (both unbounded by default, as tests want the whole record), or nothing
// at all when it is off. A message is kept as the frame it arrived in,
// with what identifies it; its payload is decoded again only when the
// recording is read, so recording costs the router an append, not a
// copy of the payload.

package router

import (
	"bytes"
	"fmt"
	"sync"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
)

// RecordLimits bound the recording. It keeps the newest messages within
// Messages and Bytes (the bytes of the messages as received, plus 64 for
// each); 0 leaves a dimension unbounded. Off records nothing.
type RecordLimits struct {
	Messages int
	Bytes    int64
	Off      bool
}

// recordCost is what the recording counts for a message beyond its frame.
const recordCost = 64

// recorded is one recorded message: what identifies it and its frame as
// received (decoded again by message).
type recorded struct {
	kind, realm, uri string
	session          uint64
	authID           string
	time             time.Time
	frame            []byte
	json             bool // the frame is JSON, else msgpack
}

// recording is the ring of recorded messages.
type recording struct {
	lim RecordLimits

	mu      sync.Mutex // guards what follows
	msgs    []recorded
	head    int
	bytes   int64
	dropped int64 // messages let go to keep within the limits
}

func cost(r *recorded) int64 { return int64(len(r.frame) + recordCost) }

// add keeps r, letting the oldest go while over the limits.
func (r *recording) add(m recorded) {
	if r.lim.Off {
		return
	}
	m.frame = bytes.Clone(m.frame) // the link reads its next message into the same buffer
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, m)
	r.bytes += cost(&m)
	for r.len() > 1 && ((r.lim.Messages > 0 && r.len() > r.lim.Messages) || (r.lim.Bytes > 0 && r.bytes > r.lim.Bytes)) {
		r.bytes -= cost(&r.msgs[r.head])
		r.msgs[r.head] = recorded{}
		r.head++
		r.dropped++
	}
	if r.head > len(r.msgs)/2 {
		r.msgs = append(r.msgs[:0], r.msgs[r.head:]...)
		r.head = 0
	}
}

// len is the number of messages kept; the caller holds mu.
func (r *recording) len() int { return len(r.msgs) - r.head }

// all returns copies of the kept messages of one kind ("" for all),
// oldest first, decoded.
func (r *recording) all(kind string) []Message {
	r.mu.Lock()
	var kept []recorded
	for _, m := range r.msgs[r.head:] {
		if kind == "" || m.kind == kind {
			kept = append(kept, m)
		}
	}
	r.mu.Unlock()
	out := make([]Message, 0, len(kept))
	for i := range kept {
		out = append(out, kept[i].message())
	}
	return out
}

// clear forgets every message.
func (r *recording) clear() {
	r.mu.Lock()
	r.msgs, r.head, r.bytes = nil, 0, 0
	r.mu.Unlock()
}

// message decodes a recorded message again, as the router first read it
// (JSON values normalised), with a payload of its own.
func (m *recorded) message() Message {
	out := Message{Kind: m.kind, Realm: m.realm, URI: m.uri, Session: m.session, AuthID: m.authID, Time: m.time}
	var ser serialize.Serializer = &serialize.MessagePackSerializer{}
	if m.json {
		ser = &serialize.JSONSerializer{}
	}
	msg, err := ser.Deserialize(m.frame)
	if err != nil { // it was decoded once: cannot happen
		panic(fmt.Sprintf("platformtest: recorded %s %s no longer decodes: %v", m.kind, m.uri, err))
	}
	if m.json {
		normalizeJSONInbound(msg)
	}
	switch x := msg.(type) {
	case *wamp.Publish:
		out.Args, out.Kwargs, out.Options = x.Arguments, x.ArgumentsKw, x.Options
	case *wamp.Call:
		out.Args, out.Kwargs, out.Options = x.Arguments, x.ArgumentsKw, x.Options
	case *wamp.Subscribe:
		out.Options = x.Options
	case *wamp.Register:
		out.Options = x.Options
	}
	return out.clone()
}

// RecordingStats describes the recording: how many messages and bytes it
// holds, and how many it let go to stay within its limits.
type RecordingStats struct {
	Messages int
	Bytes    int64
	Dropped  int64
}

// RecordingStats returns the state of the recording.
func (rt *Router) RecordingStats() RecordingStats {
	rt.rec.mu.Lock()
	defer rt.rec.mu.Unlock()
	return RecordingStats{Messages: rt.rec.len(), Bytes: rt.rec.bytes, Dropped: rt.rec.dropped}
}
