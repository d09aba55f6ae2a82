// This file holds the reading of a msgpack frame into the list a link
// decodes (msgpack_in.go). It reads the forms clients send (nil, booleans,
// integers, floats, strings, binary, arrays, maps with string keys) into
// the Go values ugorji's decoder gives with nexus's options: int64 for a
// fixint or a signed integer, uint64 for an unsigned one, float64 for
// either float, string, []byte, []any and map[string]any, every string
// and byte slice a copy. Anything else (an extension, a map key that is
// not a string or comes twice, nesting deeper than maxReadDepth, a frame
// cut short or followed by more bytes) it does not read, and the caller
// leaves the frame to nexus, so that what a link accepts and refuses, and
// how, stays nexus's. Unlike the general decoder it needs no reflection, no decoder
// state and little stack, which matters on a link's reader goroutine.

package router

import (
	"encoding/binary"
	"math"
)

// maxReadDepth is the deepest nesting readMsgpackList reads itself.
const maxReadDepth = 32

// readMsgpackList reads data, one msgpack array and nothing after it;
// ok is false for a frame it leaves to the general decoder.
func readMsgpackList(data []byte) (list []any, ok bool) {
	r := mpReader{b: data}
	v, ok := r.value(0)
	if !ok || r.i != len(r.b) {
		return nil, false
	}
	list, ok = v.([]any)
	return list, ok
}

// mpReader reads msgpack values from b, from offset i on.
type mpReader struct {
	b []byte
	i int
}

// take returns the next n bytes; ok is false when fewer are left.
func (r *mpReader) take(n int) ([]byte, bool) {
	if n < 0 || len(r.b)-r.i < n {
		return nil, false
	}
	p := r.b[r.i : r.i+n]
	r.i += n
	return p, true
}

// length reads a big-endian length of width bytes (1, 2 or 4).
func (r *mpReader) length(width int) (int, bool) {
	p, ok := r.take(width)
	if !ok {
		return 0, false
	}
	switch width {
	case 1:
		return int(p[0]), true
	case 2:
		return int(binary.BigEndian.Uint16(p)), true
	}
	n := binary.BigEndian.Uint32(p)
	if uint64(n) > uint64(len(r.b)) { // cannot fit; also keeps int(n) positive on 32-bit
		return 0, false
	}
	return int(n), true
}

// value reads one value at nesting depth.
func (r *mpReader) value(depth int) (any, bool) {
	if r.i >= len(r.b) {
		return nil, false
	}
	c := r.b[r.i]
	r.i++
	if s, isStr, ok := r.text(c); isStr {
		return s, ok
	}
	switch {
	case c <= 0x7f: // positive fixint
		return int64(c), true
	case c >= 0xe0: // negative fixint
		return int64(int8(c)), true
	case c >= 0x90 && c <= 0x9f: // fixarray
		return r.array(int(c&0x0f), depth)
	case c >= 0x80 && c <= 0x8f: // fixmap
		return r.dict(int(c&0x0f), depth)
	}
	switch c {
	case 0xc0:
		return nil, true
	case 0xc2:
		return false, true
	case 0xc3:
		return true, true
	case 0xca:
		p, ok := r.take(4)
		if !ok {
			return nil, false
		}
		return float64(math.Float32frombits(binary.BigEndian.Uint32(p))), true
	case 0xcb:
		p, ok := r.take(8)
		if !ok {
			return nil, false
		}
		return math.Float64frombits(binary.BigEndian.Uint64(p)), true
	case 0xcc, 0xcd, 0xce, 0xcf:
		p, ok := r.take(1 << (c - 0xcc))
		if !ok {
			return nil, false
		}
		return bigEndian(p), true
	case 0xd0, 0xd1, 0xd2, 0xd3:
		p, ok := r.take(1 << (c - 0xd0))
		if !ok {
			return nil, false
		}
		return signExtend(bigEndian(p), len(p)), true
	case 0xc4, 0xc5, 0xc6:
		n, ok := r.length(1 << (c - 0xc4))
		if !ok {
			return nil, false
		}
		p, ok := r.take(n)
		if !ok {
			return nil, false
		}
		return append([]byte{}, p...), true
	case 0xdc, 0xdd:
		n, ok := r.length(2 << (c - 0xdc))
		if !ok {
			return nil, false
		}
		return r.array(n, depth)
	case 0xde, 0xdf:
		n, ok := r.length(2 << (c - 0xde))
		if !ok {
			return nil, false
		}
		return r.dict(n, depth)
	}
	return nil, false // an extension, or a byte msgpack leaves unused
}

// array reads n values into a new list.
func (r *mpReader) array(n, depth int) (any, bool) {
	if depth >= maxReadDepth || n > len(r.b)-r.i { // each value takes a byte at least
		return nil, false
	}
	l := make([]any, n)
	for k := range l {
		v, ok := r.value(depth + 1)
		if !ok {
			return nil, false
		}
		l[k] = v
	}
	return l, true
}

// dict reads n pairs with string keys into a new map. A key that comes
// twice is left to the general decoder, which decodes the second value
// into the first (an error when their types differ, a merge for maps).
func (r *mpReader) dict(n, depth int) (any, bool) {
	if depth >= maxReadDepth || n > (len(r.b)-r.i)/2 { // each pair takes two bytes at least
		return nil, false
	}
	m := make(map[string]any, n)
	for range n {
		k, ok := r.key()
		if !ok {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		v, ok := r.value(depth + 1)
		if !ok {
			return nil, false
		}
		m[k] = v
	}
	return m, true
}

// key reads a map key, which must be a string.
func (r *mpReader) key() (string, bool) {
	if r.i >= len(r.b) {
		return "", false
	}
	c := r.b[r.i]
	r.i++
	s, isStr, ok := r.text(c)
	return s, isStr && ok
}

// text reads the string whose first byte c was read (a fixstr, str8, 16
// or 32), copied; isStr is false, and nothing read, for another form.
func (r *mpReader) text(c byte) (s string, isStr, ok bool) {
	n := int(c & 0x1f)
	switch {
	case c >= 0xa0 && c <= 0xbf:
	case c >= 0xd9 && c <= 0xdb:
		if n, ok = r.length(1 << (c - 0xd9)); !ok {
			return "", true, false
		}
	default:
		return "", false, false
	}
	p, ok := r.take(n)
	return string(p), true, ok
}

// bigEndian reads p (1, 2, 4 or 8 bytes) as an unsigned integer.
func bigEndian(p []byte) uint64 {
	switch len(p) {
	case 1:
		return uint64(p[0])
	case 2:
		return uint64(binary.BigEndian.Uint16(p))
	case 4:
		return uint64(binary.BigEndian.Uint32(p))
	}
	return binary.BigEndian.Uint64(p)
}

// signExtend returns u, the bytes of a signed integer of width bytes, as
// an int64.
func signExtend(u uint64, width int) int64 {
	shift := 64 - 8*width
	return int64(u<<shift) >> shift
}
