package router

import (
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// TestTakeoverFromALeavingOwner: a REGISTER with force_reregister takes a
// procedure over from a session of the same device that is leaving (its
// link closing, nexus still listing it as the callee). The takeover waits
// for nexus to remove it instead of answering procedure_already_exists, as
// a restarted app registering while its old session goes away expects.
func TestTakeoverFromALeavingOwner(t *testing.T) {
	waiting := make(chan uint64, 1)
	tr := newTestRouterWith(t, Config{}, func(rt *Router) {
		rt.onTakeoverWait = func(id uint64) { waiting <- id }
	})
	var dev int
	tr.rt.reg.Do(func(s *registry.State) { dev = s.DeviceBySerial(tr.serials[0]).Key })
	proc := wamp.URI(wire.DeviceFunction(tr.realm.Swarm, dev, tr.realm.App, tr.realm.Stage, "fn"))
	force := wamp.Dict{wire.OptForceReregister: true}

	old := tr.join(t, 0, false, wamp.Dict{"callee": wamp.Dict{}}, 0)
	old.send(&wamp.Register{Request: 1, Procedure: proc, Options: force})
	if m, ok := old.recv().(*wamp.Registered); !ok {
		t.Fatalf("first registration: %+v", m)
	}

	// The old link starts closing: the router can no longer hand it
	// anything, while nexus has not yet seen its inbound stream end.
	link := tr.link(t, old.id)
	link.rdMu.Lock()
	link.rdClosed = true
	link.rdMu.Unlock()

	next := tr.join(t, 0, false, wamp.Dict{"callee": wamp.Dict{}}, 0)
	next.send(&wamp.Register{Request: 1, Procedure: proc, Options: force})
	answer := make(chan wamp.Message, 1)
	go func() {
		b, err := readFrame(next)
		if err != nil {
			answer <- &wamp.Abort{Reason: wamp.URI(err.Error())}
			return
		}
		answer <- b
	}()
	select {
	case got := <-waiting:
		if got != uint64(old.id) {
			t.Fatalf("the takeover waits for session %d, want %d", got, old.id)
		}
	case m := <-answer:
		t.Fatalf("answered %s %+v before the leaving owner was gone", m.MessageType(), m)
	}
	close(link.rd) // nexus now ends the old session
	switch m := (<-answer).(type) {
	case *wamp.Registered:
	case *wamp.Error:
		t.Fatalf("takeover from a leaving owner refused: %s %v", m.Error, m.Arguments)
	default:
		t.Fatalf("takeover answered %s %+v", m.MessageType(), m)
	}
}

// readFrame reads and decodes one message of s without failing the test,
// for a reader on another goroutine.
func readFrame(s *rawSession) (wamp.Message, error) {
	_ = s.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
	_, b, err := s.conn.ReadMessage()
	if err != nil {
		return nil, err
	}
	return s.ser.Deserialize(b)
}
