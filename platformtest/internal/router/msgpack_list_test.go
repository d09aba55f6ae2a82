package router

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/transport/serialize"
	"github.com/gammazero/nexus/v3/wamp"
)

// msgpackListCases are messages of every type and shape msgpackList
// encodes: with and without arguments and keyword arguments, nil and
// empty, IDs of every msgpack width, details of one entry (maps of more
// entries are encoded in no fixed order).
func msgpackListCases() []wamp.Message {
	row := wamp.List{wamp.Dict{"temperature": 21.5}, "text", int64(-3), []byte{1, 2}, nil, true}
	kw := wamp.Dict{"device": wamp.Dict{"serial": "serial-1"}}
	var ms []wamp.Message
	for _, id := range []wamp.ID{0, 7, 200, 70000, 1 << 40} {
		for _, p := range []struct {
			args wamp.List
			kw   wamp.Dict
		}{{nil, nil}, {wamp.List{}, wamp.Dict{}}, {row, nil}, {nil, kw}, {wamp.List{}, kw}, {row, kw}} {
			ms = append(ms,
				&wamp.Invocation{Request: id, Registration: id + 1, Details: wamp.Dict{"caller_authid": "serial-1"}, Arguments: p.args, ArgumentsKw: p.kw},
				&wamp.Result{Request: id, Details: wamp.Dict{"progress": true}, Arguments: p.args, ArgumentsKw: p.kw},
				&wamp.Event{Subscription: id, Publication: id + 2, Details: wamp.Dict{}, Arguments: p.args, ArgumentsKw: p.kw},
				&wamp.Result{Request: id, Arguments: p.args, ArgumentsKw: p.kw}, // nil details
				&wamp.Error{Type: wamp.CALL, Request: id, Details: wamp.Dict{}, Error: "wamp.error.no_such_procedure", Arguments: p.args, ArgumentsKw: p.kw},
			)
		}
		ms = append(ms,
			&wamp.Published{Request: id, Publication: id + 3},
			&wamp.Subscribed{Request: id, Subscription: id + 4},
			&wamp.Registered{Request: id, Registration: id + 5},
			&wamp.Unsubscribed{Request: id},
			&wamp.Unregistered{Request: id},
			&wamp.Welcome{ID: id, Details: wamp.Dict{"authid": "serial-1"}},
			&wamp.Welcome{ID: id, Details: wamp.Dict{"roles": wamp.Dict{"broker": wamp.Dict{"features": wamp.Dict{"x": true}}}}},
		)
	}
	return append(ms,
		&wamp.Challenge{AuthMethod: "wampcra", Extra: wamp.Dict{"challenge": `{"nonce":"n"}`}},
		&wamp.Challenge{AuthMethod: "wampcra"},
		&wamp.Goodbye{Details: wamp.Dict{}, Reason: wamp.CloseNormal},
		&wamp.Goodbye{Reason: wamp.CloseNormal},
		&wamp.Abort{Details: wamp.Dict{"message": "no"}, Reason: "wamp.error.not_authorized"},
		&wamp.Error{Type: wamp.SUBSCRIBE, Request: 1, Error: "wamp.error.not_authorized"}, // nil details
		// A value the writer leaves to the general encoder, in each of
		// the messages written straight into their frame.
		&wamp.Result{Request: 9, Details: wamp.Dict{}, Arguments: wamp.List{time.Unix(5, 0).UTC()}},
		&wamp.Event{Subscription: 9, Publication: 10, Details: wamp.Dict{}, ArgumentsKw: wamp.Dict{"at": time.Unix(5, 0).UTC()}},
		&wamp.Invocation{Request: 9, Registration: 10, Details: wamp.Dict{"at": time.Unix(5, 0).UTC()}},
		&wamp.Error{Type: wamp.CALL, Request: 9, Details: wamp.Dict{}, Error: "x.y", Arguments: wamp.List{time.Unix(5, 0).UTC()}},
	)
}

// TestMsgpackListSameBytes checks that a link encodes INVOCATION, RESULT
// and EVENT into the very bytes nexus's serializer makes of them.
func TestMsgpackListSameBytes(t *testing.T) {
	ser := &serialize.MessagePackSerializer{}
	w := newPeer(New(Config{Clock: wallClock{}}), nil, nil, false)
	for i, m := range msgpackListCases() {
		want, err := ser.Serialize(m)
		if err != nil {
			t.Fatal(err)
		}
		if msgpackList(m) == nil {
			t.Fatalf("case %d: %T left to nexus", i, m)
		}
		got, ok := w.serialize(m)
		if !ok || !bytes.Equal(got, want) {
			t.Errorf("case %d: %s %+v\n got % x\nwant % x", i, m.MessageType(), m, got, want)
		}
	}
	if msgpackList(&wamp.Interrupt{Request: 1, Options: wamp.Dict{}}) != nil {
		t.Error("INTERRUPT has a list of its own")
	}
}

// BenchmarkSerialize compares a link's encoding of an INVOCATION and a
// RESULT with nexus's serializer (the baseline in the same run).
func BenchmarkSerialize(b *testing.B) {
	row := wamp.List{wamp.Dict{"temperature": 21.5, "unit": "C"}}
	msgs := []wamp.Message{
		&wamp.Invocation{Request: 123456, Registration: 987654321, Details: wamp.Dict{
			"caller": wamp.ID(4503599627370495), "caller_authid": "serial-1", "caller_authrole": "app"}, Arguments: row},
		&wamp.Result{Request: 123456, Details: wamp.Dict{}, Arguments: row},
	}
	ser := &serialize.MessagePackSerializer{}
	w := newPeer(New(Config{Clock: wallClock{}}), nil, nil, false)
	for _, m := range msgs {
		b.Run(fmt.Sprintf("%s/nexus", m.MessageType()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = ser.Serialize(m)
			}
		})
		b.Run(fmt.Sprintf("%s/link", m.MessageType()), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = w.serialize(m)
			}
		})
	}
}

// TestEncodedFramesKept checks that a frame the pooled encoder returned
// stays as it is while later messages are encoded (frames wait in the
// links' queues).
func TestEncodedFramesKept(t *testing.T) {
	ser := &serialize.MessagePackSerializer{}
	var frames, wants [][]byte
	for _, m := range msgpackListCases() {
		want, err := ser.Serialize(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeList(msgpackList(m))
		if err != nil {
			t.Fatal(err)
		}
		frames, wants = append(frames, got), append(wants, want)
	}
	for i := range frames {
		if !bytes.Equal(frames[i], wants[i]) {
			t.Errorf("frame %d changed after later encodings:\n got % x\nwant % x", i, frames[i], wants[i])
		}
	}
}
