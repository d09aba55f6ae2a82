// This file holds the writing of the messages a link sends most (RESULT,
// INVOCATION, EVENT, ERROR) straight into their frame: the same bytes as
// msgpackList's list written by appendMsgpackList, field by field, without
// the list and the boxing of its IDs and payload (three allocations a
// message).

package router

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/msgpackform"
	"github.com/flockgo/ironflock/internal/wire"
)

// appendMessage appends the msgpack form of msg to b; ok is false for a
// message of another type, or one holding a value appendMsgpack leaves to
// the general encoder (b then holds a part of it).
func appendMessage(b []byte, msg wamp.Message) (_ []byte, ok bool) {
	var typ wamp.MessageType
	var ids [2]wamp.ID // the IDs after the type, n of them
	var n int
	var details wamp.Dict
	var args wamp.List
	var kwargs wamp.Dict
	switch m := msg.(type) {
	case *wamp.Result:
		typ, ids, n = wamp.RESULT, [2]wamp.ID{m.Request}, 1
		details, args, kwargs = m.Details, m.Arguments, m.ArgumentsKw
	case *wamp.Invocation:
		typ, ids, n = wamp.INVOCATION, [2]wamp.ID{m.Request, m.Registration}, 2
		details, args, kwargs = m.Details, m.Arguments, m.ArgumentsKw
	case *wamp.Event:
		typ, ids, n = wamp.EVENT, [2]wamp.ID{m.Subscription, m.Publication}, 2
		details, args, kwargs = m.Details, m.Arguments, m.ArgumentsKw
	case *wamp.Error:
		return appendError(b, m)
	default:
		return b, false
	}
	b = msgpackform.AppendArrayHeader(b, 2+n+wire.PayloadElems(args, kwargs))
	b = msgpackform.AppendInt(b, int64(typ))
	for _, id := range ids[:n] {
		b = msgpackform.AppendUint(b, uint64(id))
	}
	if b, ok = appendMsgpackDict(b, details, 1); !ok {
		return b, false
	}
	return appendPayload(b, args, kwargs)
}

// appendError is appendMessage's ERROR: the type of the request it
// answers and the error URI around the details.
func appendError(b []byte, m *wamp.Error) (_ []byte, ok bool) {
	b = msgpackform.AppendArrayHeader(b, 5+wire.PayloadElems(m.Arguments, m.ArgumentsKw))
	b = msgpackform.AppendInt(b, int64(wamp.ERROR))
	b = msgpackform.AppendInt(b, int64(m.Type))
	b = msgpackform.AppendUint(b, uint64(m.Request))
	if b, ok = appendMsgpackDict(b, m.Details, 1); !ok {
		return b, false
	}
	b = msgpackform.AppendString(b, string(m.Error))
	return appendPayload(b, m.Arguments, m.ArgumentsKw)
}

// appendPayload appends the payload elements wire.PayloadElems counts.
func appendPayload(b []byte, args wamp.List, kwargs wamp.Dict) (_ []byte, ok bool) {
	switch wire.PayloadElems(args, kwargs) {
	case 2:
		if b, ok = appendMsgpackList(b, args, 1); !ok {
			return b, false
		}
		return appendMsgpackDict(b, kwargs, 1)
	case 1:
		return appendMsgpackList(b, args, 1)
	}
	return b, true
}
