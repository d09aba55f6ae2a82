// This file holds the engine's own msgpack codec for the messages of the
// hot path: PUBLISH, CALL and YIELD out, PUBLISHED, RESULT, EVENT,
// INVOCATION and ERROR in. nexus's serializer goes through a reflection
// codec and allocates for every element; these write into a reused buffer
// and read straight into the SDK's value types. The bytes written are those
// nexus's serializer writes for the same message (the same forms for each
// value, the same trailing elements left out), and what is read is what
// nexus's serializer and normalizePayload make of it. Anything else (other
// messages, value types outside the wire form, msgpack extensions, map keys
// that are not strings or repeat) is left to nexus's serializer: append and parse
// report false.

package engine

import (
	"encoding/binary"
	"math"

	"github.com/gammazero/nexus/v3/wamp"
)

// maxDepth bounds the nesting the codec follows; deeper values go to
// nexus's serializer.
const maxDepth = 64

// appendMessage appends msg in msgpack form to b; false when it is not a
// message of the hot path or carries a value of another type.
func appendMessage(b []byte, msg wamp.Message) ([]byte, bool) {
	switch m := msg.(type) {
	case *wamp.Publish:
		return appendRequest(b, wamp.PUBLISH, m.Request, m.Options, &m.Topic, m.Arguments, m.ArgumentsKw)
	case *wamp.Call:
		return appendRequest(b, wamp.CALL, m.Request, m.Options, &m.Procedure, m.Arguments, m.ArgumentsKw)
	case *wamp.Yield:
		return appendRequest(b, wamp.YIELD, m.Request, m.Options, nil, m.Arguments, m.ArgumentsKw)
	}
	return b, false
}

// appendRequest appends [type, request, options, uri, args, kwargs]; a
// message without a URI (uri nil, a YIELD) has no URI element.
func appendRequest(b []byte, typ wamp.MessageType, req wamp.ID, opts wamp.Dict, uri *wamp.URI, args wamp.List, kwargs wamp.Dict) ([]byte, bool) {
	n := payloadElems(args, kwargs)
	head := 3
	if uri != nil {
		head = 4
	}
	b = appendArrayHeader(b, head+n)
	b = appendInt(b, int64(typ))
	b = appendUint(b, uint64(req))
	b, ok := appendDict(b, opts, 0)
	if !ok {
		return b, false
	}
	if uri != nil {
		b = appendString(b, string(*uri))
	}
	return appendPayload(b, n, args, kwargs)
}

// payloadElems is how many payload elements nexus writes: both when there
// are keyword arguments, the positional ones alone when there are some,
// else none.
func payloadElems(args wamp.List, kwargs wamp.Dict) int {
	switch {
	case len(kwargs) > 0:
		return 2
	case len(args) > 0:
		return 1
	}
	return 0
}

func appendPayload(b []byte, n int, args wamp.List, kwargs wamp.Dict) ([]byte, bool) {
	ok := true
	if n >= 1 {
		b, ok = appendList(b, args, 0)
	}
	if ok && n == 2 {
		b, ok = appendDict(b, kwargs, 0)
	}
	return b, ok
}

// appendValue appends v; false for a type outside the wire form.
func appendValue(b []byte, v any, depth int) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, 0xc0), true
	case bool:
		if x {
			return append(b, 0xc3), true
		}
		return append(b, 0xc2), true
	case string:
		return appendString(b, x), true
	case int64:
		return appendInt(b, x), true
	case int:
		return appendInt(b, int64(x)), true
	case int32:
		return appendInt(b, int64(x)), true
	case uint64:
		return appendUint(b, x), true
	case uint32:
		return appendUint(b, uint64(x)), true
	case float64:
		b = append(b, 0xcb)
		return binary.BigEndian.AppendUint64(b, math.Float64bits(x)), true
	case float32:
		b = append(b, 0xca)
		return binary.BigEndian.AppendUint32(b, math.Float32bits(x)), true
	case []byte:
		if x == nil {
			return append(b, 0xc0), true
		}
		b = appendLen(b, len(x), 0, 0, 0xc4, 0xc5, 0xc6)
		return append(b, x...), true
	case []any:
		return appendList(b, x, depth+1)
	case wamp.List:
		return appendList(b, x, depth+1)
	case map[string]any:
		return appendDict(b, x, depth+1)
	case wamp.Dict:
		return appendDict(b, x, depth+1)
	}
	return b, false
}

func appendList(b []byte, l []any, depth int) ([]byte, bool) {
	if l == nil {
		return append(b, 0xc0), true
	}
	if depth > maxDepth {
		return b, false
	}
	b = appendArrayHeader(b, len(l))
	for _, e := range l {
		var ok bool
		if b, ok = appendValue(b, e, depth); !ok {
			return b, false
		}
	}
	return b, true
}

func appendDict(b []byte, d map[string]any, depth int) ([]byte, bool) {
	if d == nil {
		return append(b, 0xc0), true
	}
	if depth > maxDepth {
		return b, false
	}
	b = appendLen(b, len(d), 16, 0x80, 0, 0xde, 0xdf)
	for k, e := range d {
		b = appendString(b, k)
		var ok bool
		if b, ok = appendValue(b, e, depth); !ok {
			return b, false
		}
	}
	return b, true
}

func appendArrayHeader(b []byte, n int) []byte { return appendLen(b, n, 16, 0x90, 0, 0xdc, 0xdd) }

func appendString(b []byte, s string) []byte {
	b = appendLen(b, len(s), 32, 0xa0, 0xd9, 0xda, 0xdb)
	return append(b, s...)
}

// appendLen appends a container header for n elements or bytes: the fixed
// form below fixCut (when there is one), else the 8-bit form (when there
// is one), the 16-bit or the 32-bit form.
func appendLen(b []byte, n, fixCut int, fix, b8, b16, b32 byte) []byte {
	switch {
	case fixCut > 0 && n < fixCut:
		return append(b, fix|byte(n))
	case b8 != 0 && n < 256:
		return append(b, b8, byte(n))
	case n < 65536:
		return binary.BigEndian.AppendUint16(append(b, b16), uint16(n))
	default:
		return binary.BigEndian.AppendUint32(append(b, b32), uint32(n))
	}
}

// appendInt writes a signed integer in the smallest signed form (positive
// values above 127 in the int forms, as nexus's codec does).
func appendInt(b []byte, i int64) []byte {
	switch {
	case i > math.MaxInt8:
		switch {
		case i <= math.MaxInt16:
			return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(i))
		case i <= math.MaxInt32:
			return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(i))
		default:
			return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(i))
		}
	case i >= -32:
		return append(b, byte(i))
	case i >= math.MinInt8:
		return append(b, 0xd0, byte(i))
	case i >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(i))
	case i >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(i))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(i))
	}
}

// appendUint writes an unsigned integer in the smallest unsigned form.
func appendUint(b []byte, i uint64) []byte {
	switch {
	case i <= math.MaxInt8:
		return append(b, byte(i))
	case i <= math.MaxUint8:
		return append(b, 0xcc, byte(i))
	case i <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(i))
	case i <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(i))
	default:
		return binary.BigEndian.AppendUint64(append(b, 0xcf), i)
	}
}

// parser reads msgpack values from a message; any failure (truncation, a
// form outside the wire form) sets bad, and the message goes to nexus's
// serializer instead.
type parser struct {
	b    []byte
	bad  bool
	keys *keyCache // the link's map keys; nil keeps none
}

// parseMessage parses a message of the hot path with its payload in normal
// form; false for anything else.
func parseMessage(b []byte, keys *keyCache) (wamp.Message, bool) {
	p := parser{b: b, keys: keys}
	n := p.arrayLen()
	if p.bad || n < 1 {
		return nil, false
	}
	typ, ok := p.value(0).(int64)
	if !ok {
		return nil, false
	}
	var msg wamp.Message
	switch wamp.MessageType(typ) {
	case wamp.PUBLISHED:
		if n != 3 {
			return nil, false
		}
		msg = &wamp.Published{Request: p.id(), Publication: p.id()}
	case wamp.RESULT:
		if n < 3 || n > 5 {
			return nil, false
		}
		m := &wamp.Result{Request: p.id(), Details: p.dict()}
		m.Arguments, m.ArgumentsKw = p.payload(n - 3)
		msg = m
	case wamp.EVENT:
		if n < 4 || n > 6 {
			return nil, false
		}
		m := &wamp.Event{Subscription: p.id(), Publication: p.id(), Details: p.dict()}
		m.Arguments, m.ArgumentsKw = p.payload(n - 4)
		msg = m
	case wamp.INVOCATION:
		if n < 4 || n > 6 {
			return nil, false
		}
		m := &wamp.Invocation{Request: p.id(), Registration: p.id(), Details: p.dict()}
		m.Arguments, m.ArgumentsKw = p.payload(n - 4)
		msg = m
	case wamp.ERROR:
		if n < 5 || n > 7 {
			return nil, false
		}
		t, ok := p.value(0).(int64)
		if !ok {
			return nil, false
		}
		m := &wamp.Error{Type: wamp.MessageType(t), Request: p.id(), Details: p.dict()}
		uri, ok := p.value(0).(string)
		if !ok {
			return nil, false
		}
		m.Error = wamp.URI(uri)
		m.Arguments, m.ArgumentsKw = p.payload(n - 5)
		msg = m
	default:
		return nil, false
	}
	if p.bad || len(p.b) != 0 {
		return nil, false
	}
	return msg, true
}

// id reads an ID: an integer, converted as nexus converts it (a negative
// one wraps around).
func (p *parser) id() wamp.ID {
	c := p.u8()
	switch {
	case p.bad:
		return 0
	case c <= 0x7f:
		return wamp.ID(c)
	case c >= 0xe0:
		return wamp.ID(int64(int8(c)))
	}
	switch c {
	case 0xcc:
		return wamp.ID(p.u8())
	case 0xcd:
		return wamp.ID(p.u16())
	case 0xce:
		return wamp.ID(p.u32())
	case 0xcf:
		return wamp.ID(p.u64())
	case 0xd0:
		return wamp.ID(int64(int8(p.u8())))
	case 0xd1:
		return wamp.ID(int64(int16(p.u16())))
	case 0xd2:
		return wamp.ID(int64(int32(p.u32())))
	case 0xd3:
		return wamp.ID(p.u64())
	}
	p.bad = true
	return 0
}

// dict reads a dictionary element: nil stays nil.
func (p *parser) dict() wamp.Dict {
	switch x := p.value(0).(type) {
	case nil:
		return nil
	case map[string]any:
		return x
	}
	p.bad = true
	return nil
}

// payload reads the n (0 to 2) payload elements; nil elements stay nil.
func (p *parser) payload(n int) (wamp.List, wamp.Dict) {
	var args wamp.List
	if n >= 1 {
		switch x := p.value(0).(type) {
		case nil:
		case []any:
			args = x
		default:
			p.bad = true
		}
	}
	if n == 2 {
		return args, p.dict()
	}
	return args, nil
}

func (p *parser) need(n int) []byte {
	if p.bad || n < 0 || len(p.b) < n {
		p.bad = true
		return nil
	}
	s := p.b[:n]
	p.b = p.b[n:]
	return s
}

func (p *parser) u8() int {
	if s := p.need(1); s != nil {
		return int(s[0])
	}
	return 0
}

func (p *parser) u16() int {
	if s := p.need(2); s != nil {
		return int(binary.BigEndian.Uint16(s))
	}
	return 0
}

func (p *parser) u32() int {
	if s := p.need(4); s != nil {
		return int(binary.BigEndian.Uint32(s))
	}
	return 0
}

func (p *parser) u64() uint64 {
	if s := p.need(8); s != nil {
		return binary.BigEndian.Uint64(s)
	}
	return 0
}

// arrayLen reads an array header.
func (p *parser) arrayLen() int {
	switch c := p.u8(); {
	case c >= 0x90 && c <= 0x9f:
		return c & 0x0f
	case c == 0xdc:
		return p.u16()
	case c == 0xdd:
		return p.u32()
	}
	p.bad = true
	return 0
}

// value reads one value in normal form: int64 (uint64 above MaxInt64),
// float64, string, []byte, bool, nil, []any and map[string]any.
func (p *parser) value(depth int) any {
	if depth > maxDepth {
		p.bad = true
		return nil
	}
	c := p.u8()
	if p.bad {
		return nil
	}
	switch {
	case c <= 0x7f:
		return int64(c)
	case c >= 0xe0:
		return int64(int8(c))
	case c >= 0xa0 && c <= 0xbf:
		s, _ := p.str(c)
		return string(s)
	case c >= 0x90 && c <= 0x9f:
		return p.list(c&0x0f, depth)
	case c >= 0x80 && c <= 0x8f:
		return p.mapOf(c&0x0f, depth)
	}
	switch c {
	case 0xc0:
		return nil
	case 0xc2:
		return false
	case 0xc3:
		return true
	case 0xc4:
		return p.bytes(p.u8())
	case 0xc5:
		return p.bytes(p.u16())
	case 0xc6:
		return p.bytes(p.u32())
	case 0xca:
		return float64(math.Float32frombits(uint32(p.u32())))
	case 0xcb:
		return math.Float64frombits(p.u64())
	case 0xcc:
		return int64(p.u8())
	case 0xcd:
		return int64(p.u16())
	case 0xce:
		return int64(p.u32())
	case 0xcf:
		if u := p.u64(); u > math.MaxInt64 {
			return u
		} else {
			return int64(u)
		}
	case 0xd0:
		return int64(int8(p.u8()))
	case 0xd1:
		return int64(int16(p.u16()))
	case 0xd2:
		return int64(int32(p.u32()))
	case 0xd3:
		return int64(p.u64())
	case 0xd9, 0xda, 0xdb:
		s, _ := p.str(c)
		return string(s)
	case 0xdc:
		return p.list(p.u16(), depth)
	case 0xdd:
		return p.list(p.u32(), depth)
	case 0xde:
		return p.mapOf(p.u16(), depth)
	case 0xdf:
		return p.mapOf(p.u32(), depth)
	}
	// Extensions (timestamps among them) and unused codes.
	p.bad = true
	return nil
}

func (p *parser) bytes(n int) []byte {
	s := p.need(n)
	if s == nil {
		return nil
	}
	return append(make([]byte, 0, n), s...)
}

func (p *parser) list(n, depth int) []any {
	if p.bad || n > len(p.b) { // every element takes a byte at least
		p.bad = true
		return nil
	}
	l := make([]any, n)
	for i := range l {
		l[i] = p.value(depth + 1)
	}
	return l
}

// str reads the bytes of a string whose header byte is c (a fixstr, str
// 8, 16 or 32); false when c starts no string.
func (p *parser) str(c int) ([]byte, bool) {
	switch {
	case c >= 0xa0 && c <= 0xbf:
		return p.need(c & 0x1f), true
	case c == 0xd9:
		return p.need(p.u8()), true
	case c == 0xda:
		return p.need(p.u16()), true
	case c == 0xdb:
		return p.need(p.u32()), true
	}
	return nil, false
}

// key returns the map key b: kept by the link when short enough.
func (p *parser) key(b []byte) string {
	if p.keys == nil || len(b) > maxInternedKey {
		return string(b)
	}
	return p.keys.intern(b)
}

func (p *parser) mapOf(n, depth int) map[string]any {
	if p.bad || n > len(p.b)/2 {
		p.bad = true
		return nil
	}
	m := make(map[string]any, n)
	for range n {
		b, ok := p.str(p.u8())
		if !ok {
			p.bad = true
			return nil
		}
		k := p.key(b)
		if _, dup := m[k]; dup {
			// nexus's codec decodes a repeated key into the value already
			// there, keeping its type: leave that to it.
			p.bad = true
			return nil
		}
		m[k] = p.value(depth + 1)
	}
	return m
}
