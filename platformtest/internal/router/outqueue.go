// This file holds a link's outbound queue: the encoded frames a pump
// took from the router while the link's writer was busy (peer_write.go),
// bounded in bytes.

package router

import (
	"sync"
	"sync/atomic"
)

// frameCost is what the queue counts for a frame beyond its bytes: its
// slot and slice header, so that many tiny frames are bounded too.
const frameCost = 64

// outQueue is a FIFO of encoded frames bounded in bytes: those queued and
// those the writer has taken but not yet written.
type outQueue struct {
	maxBytes int

	mu     sync.Mutex
	frames [][]byte
	bytes  int           // cost of the frames queued and being written
	ended  bool          // discarded: the link is being dropped
	ready  chan struct{} // holds a token when the writer may have news
	peak   atomic.Int64  // the highest cost ever held, for tests
	queued atomic.Int32  // len(frames), read without mu
}

func newOutQueue(maxBytes int) *outQueue {
	return &outQueue{maxBytes: maxBytes, ready: make(chan struct{}, 1)}
}

// push queues a frame; false when it does not fit or the queue has ended.
// A frame larger than the bound is queued when nothing else is held.
func (q *outQueue) push(b []byte) bool {
	cost := len(b) + frameCost
	q.mu.Lock()
	if q.ended || (q.bytes > 0 && q.bytes+cost > q.maxBytes) {
		q.mu.Unlock()
		return false
	}
	q.frames = append(q.frames, b)
	q.queued.Store(int32(len(q.frames)))
	q.bytes += cost
	if int64(q.bytes) > q.peak.Load() {
		q.peak.Store(int64(q.bytes))
	}
	first := len(q.frames) == 1
	q.mu.Unlock()
	if first {
		q.signal()
	}
	return true
}

// take moves every queued frame to dst (their cost stays held until
// release) and reports whether the queue has ended.
func (q *outQueue) take(dst [][]byte) ([][]byte, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.frames) == 0 {
		return dst, q.ended
	}
	dst = append(dst, q.frames...)
	clear(q.frames)
	q.queued.Store(0)
	if cap(q.frames) > 64 {
		q.frames = nil // let a burst's backing array go
	} else {
		q.frames = q.frames[:0]
	}
	return dst, q.ended
}

// release gives back the cost of written frames.
func (q *outQueue) release(frames [][]byte) {
	n := 0
	for _, b := range frames {
		n += len(b) + frameCost
	}
	q.mu.Lock()
	q.bytes -= n
	q.mu.Unlock()
}

// held returns the number of frames queued and the cost held.
func (q *outQueue) held() (frames, bytes int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.frames), q.bytes
}

// discard drops every queued frame and ends the queue.
func (q *outQueue) discard() {
	q.mu.Lock()
	q.frames, q.bytes, q.ended = nil, 0, true
	q.queued.Store(0)
	q.mu.Unlock()
	q.signal()
}

// signal wakes the writer if it waits.
func (q *outQueue) signal() {
	select {
	case q.ready <- struct{}{}:
	default:
	}
}
