// This file holds the recording of the inbound messages of app sessions:
// a ring that keeps the newest messages within a count and a byte budget
// (both unbounded by default, as tests want the whole record), or nothing
// at all when it is off.

package router

import "github.com/flockgo/ironflock/internal/wirevalue"

// RecordLimits bound the recording. It keeps the newest messages within
// Messages and Bytes (estimated payload bytes); 0 leaves a dimension
// unbounded. Off records nothing.
type RecordLimits struct {
	Messages int
	Bytes    int64
	Off      bool
}

// recording is the ring of recorded messages. Guarded by Router.mu.
type recording struct {
	lim     RecordLimits
	msgs    []Message
	sizes   []int64
	head    int
	bytes   int64
	dropped int64 // messages let go to keep within the limits
}

// add keeps m (already copied) of about size bytes, letting the oldest go
// while over the limits.
func (r *recording) add(m Message, size int64) {
	if r.lim.Off {
		return
	}
	r.msgs = append(r.msgs, m)
	r.sizes = append(r.sizes, size)
	r.bytes += size
	for r.len() > 1 && ((r.lim.Messages > 0 && r.len() > r.lim.Messages) || (r.lim.Bytes > 0 && r.bytes > r.lim.Bytes)) {
		r.msgs[r.head] = Message{}
		r.bytes -= r.sizes[r.head]
		r.head++
		r.dropped++
	}
	if r.head > len(r.msgs)/2 {
		r.msgs = append(r.msgs[:0], r.msgs[r.head:]...)
		r.sizes = append(r.sizes[:0], r.sizes[r.head:]...)
		r.head = 0
	}
}

func (r *recording) len() int { return len(r.msgs) - r.head }

// all returns the kept messages, oldest first (shared; callers copy).
func (r *recording) all() []Message { return r.msgs[r.head:] }

// clear forgets every message.
func (r *recording) clear() {
	r.msgs, r.sizes, r.head, r.bytes = nil, nil, 0, 0
}

// sizeOf estimates the bytes a recorded message holds.
func sizeOf(m *Message) int64 {
	return int64(len(m.URI) + wirevalue.Size(m.Args) + wirevalue.Size(m.Kwargs) + wirevalue.Size(m.Options) + 64)
}

// RecordingStats describes the recording: how many messages and estimated
// bytes it holds, and how many it let go to stay within its limits.
type RecordingStats struct {
	Messages int
	Bytes    int64
	Dropped  int64
}

// RecordingStats returns the state of the recording.
func (rt *Router) RecordingStats() RecordingStats {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	return RecordingStats{Messages: rt.rec.len(), Bytes: rt.rec.bytes, Dropped: rt.rec.dropped}
}
