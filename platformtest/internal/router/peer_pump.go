// This file holds the pump of a link and the senders' side of the
// router's channel (peer_write.go tells how they share it): a sender that
// finds the channel nearly full, or the writer stuck in a write for over
// a millisecond, starts a pump, which empties the channel into the
// outbound queue, encoded, while the writer cannot; and a sender waits
// while the channel is nearly full, so that nexus never finds it full.

package router

import (
	"time"

	"github.com/gammazero/nexus/v3/wamp"
)

// epoch is the origin of wsPeer.writing: a monotonic clock.
var epoch = time.Now()

// slowWrite is how long a write may take before a message waiting for
// the writer starts a pump (slowWriter).
const slowWrite = time.Millisecond

// slowWriter starts a pump when the writer has been in one write for
// longer than slowWrite: the messages that wait meanwhile then go, encoded,
// into the queue, which bounds them in bytes, rather than stay in the
// channel, bounded only in number.
func (w *wsPeer) slowWriter() {
	if at := w.writing.Load(); at != 0 && time.Since(epoch)-time.Duration(at) > slowWrite && w.rx.Load() == rxIdle {
		w.startPump()
	}
}

// startPump hands the router's channel to a pump goroutine, unless the
// writer waits on it, a pump has it already or the link is closing.
func (w *wsPeer) startPump() {
	if w.rx.CompareAndSwap(rxIdle, rxPump) {
		w.rt.wg.Add(1) // the writer, alive until rxClosed, is counted
		go w.pumpRun()
	}
}

// pumpRun empties the router's channel into the queue until it finds it
// empty, then gives the channel back.
func (w *wsPeer) pumpRun() {
	defer w.rt.wg.Done()
	for {
		select {
		case msg := <-w.wr:
			w.tookOne()
			w.queue(msg)
			continue
		default:
		}
		w.rx.Store(rxIdle)
		w.out.signal()
		if len(w.wr) == 0 || !w.rx.CompareAndSwap(rxIdle, rxPump) {
			return
		}
	}
}

// tookOne wakes the senders waiting for room in the router's channel.
func (w *wsPeer) tookOne() {
	if w.roomWaiters.Load() > 0 {
		w.roomMu.Lock()
		close(w.room)
		w.room = make(chan struct{})
		w.roomMu.Unlock()
	}
}

// sendHeadroom is the room awaitRoom leaves in the router's channel for
// the senders that find room at the same moment (the broker, the dealer,
// the session's own goroutine, the platform), so that none of them finds
// it full.
const sendHeadroom = 16

// hasRoom reports whether the router's channel has room beyond the
// headroom.
func (w *wsPeer) hasRoom() bool { return len(w.wr) < cap(w.wr)-sendHeadroom }

// awaitRoom returns once the channel from the router has room, or the link
// is closing (its writer ended: closeRx; or Close), starting a pump when nobody takes from the channel (the
// writer is blocked in a write). It waits only until the writer or the
// pump is scheduled, where nexus would drop the message. Senders are the
// router's goroutines, which hold none of the platform's locks.
func (w *wsPeer) awaitRoom() {
	if w.hasRoom() {
		return
	}
	w.roomWaiters.Add(1)
	defer w.roomWaiters.Add(-1)
	for {
		w.startPump()
		w.roomMu.Lock()
		room := w.room
		w.roomMu.Unlock()
		if w.hasRoom() || w.rx.Load() == rxClosed {
			return // room, or nobody will take from the channel any more
		}
		select {
		case <-room:
		case <-w.done:
			return
		}
	}
}

// queue encodes msg and queues its frame; a full queue drops the link.
func (w *wsPeer) queue(msg wamp.Message) {
	if w.dropping.Load() {
		return
	}
	b, ok := w.encode(msg)
	if !ok || w.out.push(b) {
		return
	}
	n, size := w.out.held()
	w.drop("its outbound queue is full", "queued", n, "queued_bytes", size, "max_queued_bytes", w.out.maxBytes)
	_ = w.tc.hardClose()
}
