// This file holds the msgpack encoding of the messages a link sends
// (INVOCATION, RESULT, EVENT, ERROR, the acknowledgements, WELCOME,
// CHALLENGE, GOODBYE and ABORT; INTERRUPT and the rest stay nexus's).
// The first four are written straight into their frame
// (msgpack_direct.go) and come here only when they hold a value that
// writer leaves to the general encoder.
// nexus's MessagePackSerializer.Serialize
// turns a message into its list by reflection over the message's fields,
// and its encoder then finds the named types of the fields (wamp.ID,
// wamp.Dict, wamp.List) by reflection again; the list built here holds
// their underlying types, and is written into the same bytes nexus's
// options give (msgpack_write.go), or, when it holds a value of a type the
// writer leaves alone, encoded with those options by a pooled encoder
// (nexus makes one per message).

package router

import (
	"sync"

	"github.com/gammazero/nexus/v3/wamp"
	"github.com/ugorji/go/codec"

	"github.com/flockgo/ironflock/internal/wire"
)

// listEncoder is a pooled encoder of msgpackList's lists, with the
// options of nexus's serializer (which makes a new encoder per message),
// and the frame it encodes into.
type listEncoder struct {
	enc *codec.Encoder
	out []byte
}

// listEncoders are the links' listEncoders.
var listEncoders = sync.Pool{New: func() any {
	le := &listEncoder{}
	le.enc = codec.NewEncoderBytes(&le.out, msgpackHandle)
	return le
}}

// encodeList encodes a list of msgpackList into a new frame, by
// appendMsgpackList (msgpack_write.go), or by the pooled encoder when the
// list holds a value of a type that writer leaves alone.
func encodeList(l []any) ([]byte, error) {
	if b, ok := appendMsgpackList(make([]byte, 0, 128), l, 0); ok {
		return b, nil
	}
	le := listEncoders.Get().(*listEncoder)
	le.out = nil
	le.enc.ResetBytes(&le.out)
	err := le.enc.Encode(l)
	b := le.out
	le.out = nil
	listEncoders.Put(le)
	return b, err
}

// msgpackList returns the list msgpack encodes msg as, nil for a message
// left to nexus's Serialize: its fields in their order, as nexus lists
// them, and like nexus it leaves out empty arguments and keyword
// arguments at the end.
func msgpackList(msg wamp.Message) []any {
	switch m := msg.(type) {
	case *wamp.Invocation:
		return withPayload(append(make([]any, 0, 6), int(wamp.INVOCATION), uint64(m.Request), uint64(m.Registration),
			map[string]any(m.Details)), m.Arguments, m.ArgumentsKw)
	case *wamp.Result:
		return withPayload(append(make([]any, 0, 5), int(wamp.RESULT), uint64(m.Request),
			map[string]any(m.Details)), m.Arguments, m.ArgumentsKw)
	case *wamp.Event:
		return withPayload(append(make([]any, 0, 6), int(wamp.EVENT), uint64(m.Subscription), uint64(m.Publication),
			map[string]any(m.Details)), m.Arguments, m.ArgumentsKw)
	case *wamp.Error:
		return withPayload(append(make([]any, 0, 7), int(wamp.ERROR), int(m.Type), uint64(m.Request),
			map[string]any(m.Details), string(m.Error)), m.Arguments, m.ArgumentsKw)
	case *wamp.Published:
		return []any{int(wamp.PUBLISHED), uint64(m.Request), uint64(m.Publication)}
	case *wamp.Subscribed:
		return []any{int(wamp.SUBSCRIBED), uint64(m.Request), uint64(m.Subscription)}
	case *wamp.Registered:
		return []any{int(wamp.REGISTERED), uint64(m.Request), uint64(m.Registration)}
	case *wamp.Unsubscribed:
		return []any{int(wamp.UNSUBSCRIBED), uint64(m.Request)}
	case *wamp.Unregistered:
		return []any{int(wamp.UNREGISTERED), uint64(m.Request)}
	case *wamp.Welcome:
		return []any{int(wamp.WELCOME), uint64(m.ID), map[string]any(m.Details)}
	case *wamp.Challenge:
		return []any{int(wamp.CHALLENGE), m.AuthMethod, map[string]any(m.Extra)}
	case *wamp.Goodbye:
		return []any{int(wamp.GOODBYE), map[string]any(m.Details), string(m.Reason)}
	case *wamp.Abort:
		return []any{int(wamp.ABORT), map[string]any(m.Details), string(m.Reason)}
	}
	return nil
}

// withPayload appends the arguments and keyword arguments to l, as far as
// they are not empty at the end.
func withPayload(l []any, args wamp.List, kwargs wamp.Dict) []any {
	switch wire.PayloadElems(args, kwargs) {
	case 2:
		return append(l, []any(args), map[string]any(kwargs))
	case 1:
		return append(l, []any(args))
	}
	return l
}
