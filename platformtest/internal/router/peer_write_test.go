package router

import (
	"bytes"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

// TestSlowSubscriberWithinQueueBytes: a subscriber that never reads is
// dropped with a log line once its outbound queue would pass the byte
// bound, and the queue never held more than the bound, while the
// platform published 25 times the bound to it.
func TestSlowSubscriberWithinQueueBytes(t *testing.T) {
	leakcheck.Check(t)
	const bound = 1 << 20
	tr := newTestRouter(t, Config{Limits: Limits{QueueBytes: bound}})
	stalled := tr.join(t, 1, false, subscriberRoles(false), 4096)
	stalled.subscribe("flood", "")
	w := tr.link(t, stalled.id)
	host := tr.rt.Host(tr.realm.Name)
	payload := bytes.Repeat([]byte{'x'}, 64<<10)
	for range 400 {
		if err := host.Publish("flood", nil, wamp.List{payload}, nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.rt.WaitGone(testCtx(t), uint64(stalled.id)); err != nil {
		t.Fatalf("the stalled subscriber is still connected: %v", err)
	}
	if peak := w.out.peak.Load(); peak > bound {
		t.Errorf("the queue held %d bytes, over its bound of %d", peak, bound)
	} else if peak == 0 {
		t.Error("nothing was queued: the writer never blocked, so the bound was not tried")
	}
	if logs := tr.logs.String(); !strings.Contains(logs, "dropping a link that cannot keep up: its outbound queue is full") {
		t.Errorf("no log line says why the link was dropped:\n%s", logs)
	}
}

// TestSlowSubscriberGetsEverythingInOrder: a subscriber that reads late,
// three times over, gets every event in order, those its writer wrote
// and those a pump queued while the writer was blocked (each round's
// 20 MiB are more than the sockets' buffers hold).
func TestSlowSubscriberGetsEverythingInOrder(t *testing.T) {
	leakcheck.Check(t)
	tr := newTestRouter(t, Config{Limits: Limits{QueueBytes: 64 << 20}})
	late := tr.join(t, 1, false, subscriberRoles(false), 0)
	late.subscribe("seq", "")
	w := tr.link(t, late.id)
	host := tr.rt.Host(tr.realm.Name)
	const rounds, n = 3, 5000
	pad := strings.Repeat("x", 4<<10)
	seq := 0
	for r := range rounds {
		for i := range n {
			if err := host.Publish("seq", nil, wamp.List{r*n + i, pad}, nil); err != nil {
				t.Fatal(err)
			}
		}
		for range n {
			ev, ok := late.recv().(*wamp.Event)
			if !ok {
				t.Fatalf("message %d is not an EVENT", seq)
			}
			if got, _ := wamp.AsInt64(ev.Arguments[0]); got != int64(seq) {
				t.Fatalf("event %d carries %d", seq, got)
			}
			seq++
		}
	}
	if w.out.peak.Load() == 0 {
		t.Error("nothing was queued: the writer never blocked, so the pump was not tried")
	}
}

// TestDroppedByNexusDropsTheLink: when nexus logs that it dropped a
// message for a session whose channel was full, the link is dropped with
// a log line: the client must not go on as if it had everything.
func TestDroppedByNexusDropsTheLink(t *testing.T) {
	tr := newTestRouter(t, Config{})
	s := tr.join(t, 0, false, subscriberRoles(false), 0)
	w := tr.link(t, s.id)
	nexusLogger{l: slog.New(slog.DiscardHandler), rt: tr.rt}.Printf("!!! Dropped %s to session %s: blocked",
		wamp.EVENT, &wamp.Session{Peer: w, ID: s.id})
	if err := tr.rt.WaitGone(testCtx(t), uint64(s.id)); err != nil {
		t.Fatalf("the link is still connected: %v", err)
	}
	if logs := tr.logs.String(); !strings.Contains(logs, "the router could not hand it a message") {
		t.Errorf("no log line says why the link was dropped:\n%s", logs)
	}
}

// TestAwaitRoomEndsWithTheWriter: a sender waiting for room in a link's
// full channel returns once the link's writer has ended (closeRx, as when
// a slow link is dropped), not only at Close: nexus's broker waits there,
// and nexus calls Close only after the broker has let the session go.
func TestAwaitRoomEndsWithTheWriter(t *testing.T) {
	w := &wsPeer{wr: make(chan wamp.Message, 2*sendHeadroom), room: make(chan struct{}), done: make(chan struct{}),
		out: newOutQueue(1 << 10)}
	for len(w.wr) < cap(w.wr) {
		w.wr <- &wamp.Published{}
	}
	w.rx.Store(rxWriter) // the writer has the channel, stuck in a write
	returned := make(chan struct{})
	go func() {
		w.awaitRoom()
		close(returned)
	}()
	for w.roomWaiters.Load() == 0 { // the sender waits
		runtime.Gosched()
	}
	w.rx.Store(rxIdle) // the writer gives up the channel and ends
	w.closeRx()
	select {
	case <-returned:
	case <-time.After(time.Minute):
		t.Fatal("the sender still waits for room after the writer ended")
	}
	// A sender arriving after the writer ended does not wait at all.
	w.awaitRoom()
}
