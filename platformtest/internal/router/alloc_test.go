package router

import (
	"testing"

	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// hotPaths are the router's work per message and per delivered EVENT,
// each with the allocations it may make: a change that adds one fails
// TestHotPathAllocations. nexus's own work (decoding, routing, its
// serializer) is not counted here.
func hotPaths(tb testing.TB) []struct {
	name   string
	allocs float64
	run    func()
} {
	rt := New(Config{Clock: wallClock{}, Record: RecordLimits{Messages: 10000, Bytes: 64 << 20}}) // flockd's bounds
	ri := realm.Info{Name: "realm-1-2-dev", Swarm: 1, App: 2, Stage: "DEV"}
	s := &session{id: 5, realm: ri, authID: "serial-1", role: wire.RoleApp, device: &registry.Device{Key: 3, Serial: "serial-1"}}
	rt.byID.Store(s.id, s)
	w := newPeer(rt, nil, nil, false)
	s.peer = w
	ev := testPublication(tb, rt, 3)
	if _, ok := w.eventOut(ev); !ok {
		tb.Fatal("not encoded")
	}
	az := &authorizer{rt: rt, realm: ri}
	sess := &wamp.Session{ID: wamp.ID(s.id)}
	row := wamp.List{wamp.Dict{"temperature": 21.5}}
	frame := []byte("a frame as received")
	pub := &wamp.Publish{Topic: "com.example.t", Options: wamp.Dict{}, Arguments: row}
	call := &wamp.Call{Procedure: "com.example.p", Options: wamp.Dict{}, Arguments: row}
	q := newOutQueue(1 << 20)
	res := &wamp.Result{Request: 9, Details: wamp.Dict{}, Arguments: wamp.List{int64(1)}}
	buf := frameBufs.Get().(*[]byte)
	batch := make([][]byte, 0, 4)
	return []struct {
		name   string
		allocs float64
		run    func()
	}{
		// The delivery of an EVENT whose publication another link encoded.
		{"eventOut, encoded", 0, func() { _, _ = w.eventOut(ev) }},
		// nexus asks for the channel before each message.
		{"Send", 0, func() { _ = w.Send() }},
		// The writer's RESULT, on its kept buffer (writeOne).
		{"encodeTo RESULT", 0, func() {
			b, own, _ := w.encodeTo((*buf)[:0], res)
			keepFrameBuf(buf, b, own)
		}},
		// A pump's frame through the queue.
		{"queue", 0, func() {
			q.push(frame)
			batch, _ = q.take(batch[:0])
			q.release(batch)
		}},
		{"sessionByID", 0, func() { _ = rt.sessionByID(5) }},
		// The recording of an inbound PUBLISH (the ring's growth amortized):
		// the copy of its frame, which the link reads the next message into.
		{"record", 1, func() {
			_, _ = rt.record(s, &wamp.Publish{Topic: "t", Arguments: row}, frame, false)
		}},
		// Authorization of a PUBLISH: the publisher's identity for the
		// subscribers (the options are the client's).
		{"Authorize PUBLISH", 1, func() {
			delete(pub.Options, wire.OptDiscloseMe)
			delete(pub.Options, publisherKey)
			_, _ = az.Authorize(sess, pub)
		}},
		{"Authorize CALL", 0, func() {
			delete(call.Options, wire.OptDiscloseMe)
			_, _ = az.Authorize(sess, call)
		}},
		// The note of a publication: the note and the argument list that
		// carries it.
		{"publishFilterFactory", 2, func() {
			pub.Arguments = row
			_ = rt.publishFilterFactory(pub)
		}},
	}
}

// TestHotPathAllocations pins the allocations of the router's hot paths.
func TestHotPathAllocations(t *testing.T) {
	for _, p := range hotPaths(t) {
		if got := testing.AllocsPerRun(1000, p.run); got > p.allocs {
			t.Errorf("%s: %v allocations, at most %v", p.name, got, p.allocs)
		} else if got < p.allocs {
			t.Logf("%s: %v allocations, fewer than the %v pinned: lower the pin", p.name, got, p.allocs)
		}
	}
}

// BenchmarkHotPaths measures the router's hot paths one by one.
func BenchmarkHotPaths(b *testing.B) {
	for _, p := range hotPaths(b) {
		b.Run(p.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.run()
			}
		})
	}
}
