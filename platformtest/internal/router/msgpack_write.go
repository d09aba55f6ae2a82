// This file holds the writing of a link's outgoing list in msgpack
// (msgpack_list.go): the bytes ugorji's encoder writes with nexus's
// options, for the values the platform sends (nil, booleans, Go's integer
// and float types, strings, byte slices, lists and maps with string keys,
// and nexus's named forms of them), without reflection or encoder state.
// A list holding any other type (a time, a struct, a value with a
// marshaler of its own) is left to that encoder whole. Maps are written in
// Go's order of iteration, as that encoder writes them.

package router

import (
	"encoding/binary"
	"math"

	"github.com/gammazero/nexus/v3/wamp"
)

// maxWriteDepth is the deepest nesting appendMsgpack writes itself.
const maxWriteDepth = 32

// appendMsgpack appends v to b; ok is false for a value it leaves to the
// general encoder.
func appendMsgpack(b []byte, v any, depth int) (_ []byte, ok bool) {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0), true
	case bool:
		if x {
			return append(b, 0xc3), true
		}
		return append(b, 0xc2), true
	case string:
		return appendMsgpackString(b, x), true
	case wamp.URI:
		return appendMsgpackString(b, string(x)), true
	case int:
		return appendMsgpackInt(b, int64(x)), true
	case int64:
		return appendMsgpackInt(b, x), true
	case int32:
		return appendMsgpackInt(b, int64(x)), true
	case int16:
		return appendMsgpackInt(b, int64(x)), true
	case int8:
		return appendMsgpackInt(b, int64(x)), true
	case uint:
		return appendMsgpackUint(b, uint64(x)), true
	case uint64:
		return appendMsgpackUint(b, x), true
	case wamp.ID:
		return appendMsgpackUint(b, uint64(x)), true
	case uint32:
		return appendMsgpackUint(b, uint64(x)), true
	case uint16:
		return appendMsgpackUint(b, uint64(x)), true
	case uint8:
		return appendMsgpackUint(b, uint64(x)), true
	case float64:
		return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(x)), true
	case float32:
		return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(x)), true
	case []byte:
		if x == nil {
			return append(b, 0xc0), true
		}
		return append(appendMsgpackLen(b, len(x), 0, 0xc4, 0xc5, 0xc6), x...), true
	case []any:
		return appendMsgpackList(b, x, depth)
	case wamp.List:
		return appendMsgpackList(b, x, depth)
	case []string:
		if x == nil {
			return append(b, 0xc0), true
		}
		b = appendMsgpackLen(b, len(x), 0x90, 0, 0xdc, 0xdd)
		for _, s := range x {
			b = appendMsgpackString(b, s)
		}
		return b, true
	case []map[string]any:
		if x == nil {
			return append(b, 0xc0), true
		}
		b = appendMsgpackLen(b, len(x), 0x90, 0, 0xdc, 0xdd)
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
	b = appendMsgpackLen(b, len(l), 0x90, 0, 0xdc, 0xdd)
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
	b = appendMsgpackLen(b, len(m), 0x80, 0, 0xde, 0xdf)
	for k, v := range m {
		b = appendMsgpackString(b, k)
		var ok bool
		if b, ok = appendMsgpack(b, v, depth+1); !ok {
			return b, false
		}
	}
	return b, true
}

// appendMsgpackString appends s as a str (str8 included, as nexus's
// options have it).
func appendMsgpackString(b []byte, s string) []byte {
	return append(appendMsgpackLen(b, len(s), 0xa0, 0xd9, 0xda, 0xdb), s...)
}

// appendMsgpackLen appends the header of a container of n elements or
// bytes: fix (0 when the type has no fix form, for up to 31 elements
// with strings, 15 otherwise), b8 (0 when it has none), b16 or b32.
func appendMsgpackLen(b []byte, n int, fix, b8, b16, b32 byte) []byte {
	limit := 16
	if fix == 0xa0 {
		limit = 32
	}
	switch {
	case fix != 0 && n < limit:
		return append(b, fix|byte(n))
	case b8 != 0 && n < 256:
		return append(b, b8, byte(n))
	case n < 65536:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}

// appendMsgpackInt appends i in the shortest form for a signed integer.
func appendMsgpackInt(b []byte, i int64) []byte {
	switch {
	case i > math.MaxInt32:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(i))
	case i > math.MaxInt16:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(i))
	case i > math.MaxInt8:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(i))
	case i >= -32:
		return append(b, byte(i))
	case i >= math.MinInt8:
		return append(b, 0xd0, byte(i))
	case i >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(i))
	case i >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(i))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(i))
}

// appendMsgpackUint appends u in the shortest form for an unsigned
// integer.
func appendMsgpackUint(b []byte, u uint64) []byte {
	switch {
	case u <= math.MaxInt8:
		return append(b, byte(u))
	case u <= math.MaxUint8:
		return append(b, 0xcc, byte(u))
	case u <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(u))
	case u <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(u))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xcf), u)
}
