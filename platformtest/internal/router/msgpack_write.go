// This file holds the writing of a link's outgoing list in msgpack
// (msgpack_list.go): the bytes ugorji's encoder writes with nexus's
// options, for the values the platform sends (the scalars of
// internal/msgpackform, lists and maps with string keys, and nexus's named
// forms of them), without reflection or encoder state.
// A list holding any other type (a time, a struct, a value with a
// marshaler of its own) is left to that encoder whole. Maps are written in
// Go's order of iteration, as that encoder writes them.

package router

import (
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/msgpackform"
)

// maxWriteDepth is the deepest nesting appendMsgpack writes itself.
const maxWriteDepth = 32

// appendMsgpack appends v to b; ok is false for a value it leaves to the
// general encoder.
func appendMsgpack(b []byte, v any, depth int) (_ []byte, ok bool) {
	if b, ok := msgpackform.AppendScalar(b, v); ok {
		return b, true
	}
	switch x := v.(type) {
	case wamp.URI:
		return msgpackform.AppendString(b, string(x)), true
	case wamp.ID:
		return msgpackform.AppendUint(b, uint64(x)), true
	case []any:
		return appendMsgpackList(b, x, depth)
	case wamp.List:
		return appendMsgpackList(b, x, depth)
	case []string:
		if x == nil {
			return append(b, 0xc0), true
		}
		b = msgpackform.AppendArrayHeader(b, len(x))
		for _, s := range x {
			b = msgpackform.AppendString(b, s)
		}
		return b, true
	case []map[string]any:
		if x == nil {
			return append(b, 0xc0), true
		}
		b = msgpackform.AppendArrayHeader(b, len(x))
		for _, m := range x {
			var ok bool
			if b, ok = appendMsgpackDict(b, m, depth+1); !ok {
				return b, false
			}
		}
		return b, true
	case map[string]any:
		return appendMsgpackDict(b, x, depth)
	case wamp.Dict:
		return appendMsgpackDict(b, x, depth)
	}
	return b, false
}

// appendMsgpackList appends l, nil as nil.
func appendMsgpackList(b []byte, l []any, depth int) ([]byte, bool) {
	if l == nil {
		return append(b, 0xc0), true
	}
	if depth >= maxWriteDepth {
		return b, false
	}
	b = msgpackform.AppendArrayHeader(b, len(l))
	for _, v := range l {
		var ok bool
		if b, ok = appendMsgpack(b, v, depth+1); !ok {
			return b, false
		}
	}
	return b, true
}

// appendMsgpackDict appends m, nil as nil.
func appendMsgpackDict(b []byte, m map[string]any, depth int) ([]byte, bool) {
	if m == nil {
		return append(b, 0xc0), true
	}
	if depth >= maxWriteDepth {
		return b, false
	}
	b = msgpackform.AppendMapHeader(b, len(m))
	for k, v := range m {
		b = msgpackform.AppendString(b, k)
		var ok bool
		if b, ok = appendMsgpack(b, v, depth+1); !ok {
			return b, false
		}
	}
	return b, true
}
