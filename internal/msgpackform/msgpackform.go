// Package msgpackform writes msgpack values in the forms nexus's codec
// (ugorji's msgpack with nexus's options) writes them, so that a frame
// written here is the very bytes a nexus peer would send: a signed integer
// in the shortest signed form (a fixint from -32 to 127), an unsigned one
// in the shortest unsigned form, floats at their own width, strings as
// str (str8 included) and byte slices as bin. The SDK's engine and the
// fake platform's links write their WAMP frames with it; the containers
// and their element types are each side's own.
package msgpackform

import (
	"encoding/binary"
	"math"
)

// AppendInt appends i in the shortest signed form.
func AppendInt(b []byte, i int64) []byte {
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

// AppendUint appends u in the shortest unsigned form.
func AppendUint(b []byte, u uint64) []byte {
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

// AppendFloat64 appends f as a float 64.
func AppendFloat64(b []byte, f float64) []byte {
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
}

// AppendFloat32 appends f as a float 32.
func AppendFloat32(b []byte, f float32) []byte {
	return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f))
}

// AppendString appends s as a str.
func AppendString(b []byte, s string) []byte {
	return append(appendLen(b, len(s), 32, 0xa0, 0xd9, 0xda, 0xdb), s...)
}

// AppendBin appends p as a bin (nil too: the caller writes nil for a nil
// slice where that is meant).
func AppendBin(b, p []byte) []byte {
	return append(appendLen(b, len(p), 0, 0, 0xc4, 0xc5, 0xc6), p...)
}

// AppendArrayHeader appends the header of an array of n values.
func AppendArrayHeader(b []byte, n int) []byte { return appendLen(b, n, 16, 0x90, 0, 0xdc, 0xdd) }

// AppendMapHeader appends the header of a map of n pairs.
func AppendMapHeader(b []byte, n int) []byte { return appendLen(b, n, 16, 0x80, 0, 0xde, 0xdf) }

// AppendScalar appends v when it is nil, a bool, a string, one of Go's
// integer or float types or a byte slice (nil as nil); ok is false, and b
// unchanged, for any other type.
func AppendScalar(b []byte, v any) (_ []byte, ok bool) {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0), true
	case bool:
		if x {
			return append(b, 0xc3), true
		}
		return append(b, 0xc2), true
	case string:
		return AppendString(b, x), true
	case int64:
		return AppendInt(b, x), true
	case int:
		return AppendInt(b, int64(x)), true
	case int32:
		return AppendInt(b, int64(x)), true
	case int16:
		return AppendInt(b, int64(x)), true
	case int8:
		return AppendInt(b, int64(x)), true
	case uint64:
		return AppendUint(b, x), true
	case uint:
		return AppendUint(b, uint64(x)), true
	case uint32:
		return AppendUint(b, uint64(x)), true
	case uint16:
		return AppendUint(b, uint64(x)), true
	case uint8:
		return AppendUint(b, uint64(x)), true
	case float64:
		return AppendFloat64(b, x), true
	case float32:
		return AppendFloat32(b, x), true
	case []byte:
		if x == nil {
			return append(b, 0xc0), true
		}
		return AppendBin(b, x), true
	}
	return b, false
}

// appendLen appends a header for n elements or bytes: the fixed form
// below fixCut (when there is one), else the 8-bit form (when there is
// one), the 16-bit or the 32-bit form.
func appendLen(b []byte, n, fixCut int, fix, b8, b16, b32 byte) []byte {
	switch {
	case fixCut > 0 && n < fixCut:
		return append(b, fix|byte(n))
	case b8 != 0 && n < 256:
		return append(b, b8, byte(n))
	case n < 65536:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
}
