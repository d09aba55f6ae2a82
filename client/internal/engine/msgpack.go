// This file holds the msgpack side of the codec (codec.go): the values of
// the wire form written into a reused buffer, and read straight into the
// SDK's value types, with a fast path for the messages a device receives
// most (PUBLISHED, RESULT, EVENT, INVOCATION and ERROR). Integer widths are
// explicit throughout, so that a 32-bit device reads and writes the same
// values as a 64-bit one.

package engine

import (
	"encoding/binary"
	"math"
	"time"

	"github.com/flockgo/ironflock/internal/msgpackform"
	"github.com/flockgo/ironflock/internal/wire"
)

// appendValue appends v; an error for a type outside the wire form or
// nesting beyond maxDepth.
func appendValue(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) { // the scalars here too: msgpackform.AppendScalar is a call more per value
	case nil:
		return append(b, 0xc0), nil
	case bool:
		if x {
			return append(b, 0xc3), nil
		}
		return append(b, 0xc2), nil
	case string:
		return msgpackform.AppendString(b, x), nil
	case int64:
		return msgpackform.AppendInt(b, x), nil
	case int:
		return msgpackform.AppendInt(b, int64(x)), nil
	case int32:
		return msgpackform.AppendInt(b, int64(x)), nil
	case int16:
		return msgpackform.AppendInt(b, int64(x)), nil
	case int8:
		return msgpackform.AppendInt(b, int64(x)), nil
	case uint64:
		return msgpackform.AppendUint(b, x), nil
	case uint:
		return msgpackform.AppendUint(b, uint64(x)), nil
	case uint32:
		return msgpackform.AppendUint(b, uint64(x)), nil
	case uint16:
		return msgpackform.AppendUint(b, uint64(x)), nil
	case uint8:
		return msgpackform.AppendUint(b, uint64(x)), nil
	case float64:
		return msgpackform.AppendFloat64(b, x), nil
	case float32:
		return msgpackform.AppendFloat32(b, x), nil
	case []byte:
		if x == nil {
			return append(b, 0xc0), nil
		}
		return msgpackform.AppendBin(b, x), nil
	case []any:
		return appendList(b, x, depth+1)
	case map[string]any:
		return appendDict(b, x, depth+1)
	case *rawValue:
		return append(b, x.b...), nil
	}
	return b, unsupported(v)
}

func appendList(b []byte, l []any, depth int) ([]byte, error) {
	if l == nil {
		return append(b, 0xc0), nil
	}
	if depth > maxDepth {
		return b, errDepth
	}
	b = msgpackform.AppendArrayHeader(b, len(l))
	for _, e := range l {
		var err error
		if b, err = appendValue(b, e, depth); err != nil {
			return b, err
		}
	}
	return b, nil
}

func appendDict(b []byte, d map[string]any, depth int) ([]byte, error) {
	switch {
	case d == nil:
		return append(b, 0xc0), nil
	case len(d) == 0 && depth <= maxDepth:
		return append(b, 0x80), nil // the options of most messages
	}
	if depth > maxDepth {
		return b, errDepth
	}
	b = msgpackform.AppendMapHeader(b, len(d))
	for k, e := range d {
		b = msgpackform.AppendString(b, k)
		var err error
		if b, err = appendValue(b, e, depth); err != nil {
			return b, err
		}
	}
	return b, nil
}

// parser reads msgpack values from a message; any failure (truncation, a
// form outside the wire form) sets bad.
type parser struct {
	b    []byte
	bad  bool
	keys *keyCache // the link's map keys; nil keeps none
}

// parseMessage reads a message of the fast path (PUBLISHED, RESULT,
// EVENT, INVOCATION, ERROR) with its values in normal form; false for
// anything else, which decode reads as a list.
func parseMessage(b []byte, keys *keyCache) (message, bool) {
	p := parser{b: b, keys: keys}
	n := p.arrayLen()
	if p.bad || n < 1 {
		return nil, false
	}
	typ, ok := p.value(0).(int64)
	if !ok {
		return nil, false
	}
	var msg message
	switch msgType(typ) {
	case mtPublished:
		if n != 3 {
			return nil, false
		}
		msg = &publishedMsg{Request: p.id(), Publication: p.id()}
	case mtResult:
		if n < 3 || n > 5 {
			return nil, false
		}
		m := &resultMsg{Request: p.id(), Details: p.dict()}
		m.Args, m.Kwargs = p.payload(n - 3)
		m.progress, _ = m.Details[wire.OptProgress].(bool)
		msg = m
	case mtEvent:
		if n < 4 || n > 6 {
			return nil, false
		}
		m := &eventMsg{Subscription: p.id(), Publication: p.id(), Details: p.dict()}
		m.Args, m.Kwargs = p.payload(n - 4)
		msg = m
	case mtInvocation:
		if n < 4 || n > 6 {
			return nil, false
		}
		m := &invocationMsg{Request: p.id(), Registration: p.id(), Details: p.dict()}
		m.Args, m.Kwargs = p.payload(n - 4)
		m.invocationDetails.from(m.Details)
		msg = m
	case mtError:
		if n < 5 || n > 7 {
			return nil, false
		}
		t, ok := p.value(0).(int64)
		if !ok {
			return nil, false
		}
		m := &errorMsg{Type: msgType(t), Request: p.id(), Details: p.dict()}
		uri, ok := p.value(0).(string)
		if !ok {
			return nil, false
		}
		m.Error = uri
		m.Args, m.Kwargs = p.payload(n - 5)
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
func (p *parser) id() uint64 {
	c := p.u8()
	switch {
	case p.bad:
		return 0
	case c <= 0x7f:
		return uint64(c)
	case c >= 0xe0:
		return uint64(int64(int8(c)))
	}
	switch c {
	case 0xcc:
		return uint64(p.u8())
	case 0xcd:
		return uint64(p.u16())
	case 0xce:
		return uint64(p.u32())
	case 0xcf:
		return p.u64()
	case 0xd0:
		return uint64(int64(int8(p.u8())))
	case 0xd1:
		return uint64(int64(int16(p.u16())))
	case 0xd2:
		return uint64(int64(int32(p.u32())))
	case 0xd3:
		return p.u64()
	}
	p.bad = true
	return 0
}

// dict reads a dictionary element: nil stays nil.
func (p *parser) dict() map[string]any {
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
func (p *parser) payload(n int) ([]any, map[string]any) {
	var args []any
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

// u32 reads 4 bytes: a uint32, which does not fit an int on 32-bit
// devices.
func (p *parser) u32() uint32 {
	if s := p.need(4); s != nil {
		return binary.BigEndian.Uint32(s)
	}
	return 0
}

func (p *parser) u64() uint64 {
	if s := p.need(8); s != nil {
		return binary.BigEndian.Uint64(s)
	}
	return 0
}

// n32 reads a 32-bit length or count: at most the bytes left (every
// element and byte takes one at least), so that it fits an int everywhere.
func (p *parser) n32() int {
	n := p.u32()
	if uint64(n) > uint64(len(p.b)) {
		p.bad = true
		return 0
	}
	return int(n)
}

// arrayLen reads an array header.
func (p *parser) arrayLen() int {
	switch c := p.u8(); {
	case c >= 0x90 && c <= 0x9f:
		return c & 0x0f
	case c == 0xdc:
		return p.u16()
	case c == 0xdd:
		return p.n32()
	}
	p.bad = true
	return 0
}

// mapLen reads a map header.
func (p *parser) mapLen() int {
	switch c := p.u8(); {
	case c >= 0x80 && c <= 0x8f:
		return c & 0x0f
	case c == 0xde:
		return p.u16()
	case c == 0xdf:
		return p.n32()
	}
	p.bad = true
	return 0
}

// value reads one value in normal form: int64 (uint64 above MaxInt64),
// float64, string, []byte, bool, nil, []any, map[string]any, and
// time.Time for the timestamp extension.
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
		return p.bytes(p.n32())
	case 0xca:
		return float64(math.Float32frombits(p.u32()))
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
	case 0xd6, 0xd7, 0xc7:
		return p.timestamp(c)
	case 0xd9, 0xda, 0xdb:
		s, _ := p.str(c)
		return string(s)
	case 0xdc:
		return p.list(p.u16(), depth)
	case 0xdd:
		return p.list(p.n32(), depth)
	case 0xde:
		return p.mapOf(p.u16(), depth)
	case 0xdf:
		return p.mapOf(p.n32(), depth)
	}
	// Other extensions and unused codes.
	p.bad = true
	return nil
}

// timestamp reads the timestamp extension (type -1) in its three forms:
// fixext 4 (seconds), fixext 8 (30 bits of nanoseconds, 34 of seconds) and
// ext 8 of 12 bytes (nanoseconds, then signed seconds). Other extensions
// are outside the wire form.
func (p *parser) timestamp(c int) any {
	s := p.timestampBytes(c)
	switch n := len(s); {
	case s == nil:
		return nil
	case n == 4:
		return time.Unix(int64(binary.BigEndian.Uint32(s)), 0).UTC()
	case n == 8:
		v := binary.BigEndian.Uint64(s)
		return time.Unix(int64(v&(1<<34-1)), int64(v>>34)).UTC()
	default:
		return time.Unix(int64(binary.BigEndian.Uint64(s[4:])), int64(binary.BigEndian.Uint32(s))).UTC()
	}
}

// timestampBytes reads the header of the timestamp extension of code c
// and returns its 4, 8 or 12 bytes; nil (and bad) for another extension
// or a short message.
func (p *parser) timestampBytes(c int) []byte {
	n := 4
	switch c {
	case 0xd7:
		n = 8
	case 0xc7:
		if n = p.u8(); n != 12 {
			p.bad = true
			return nil
		}
	}
	if p.u8() != 0xff {
		p.bad = true
		return nil
	}
	return p.need(n)
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
		return p.need(p.n32()), true
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

// mapOf reads n key/value pairs. Keys are strings (a binary key is read
// as one, as nexus does); a map repeating a key is refused.
func (p *parser) mapOf(n, depth int) map[string]any {
	if p.bad || n > len(p.b)/2 {
		p.bad = true
		return nil
	}
	m := make(map[string]any, n)
	for range n {
		c := p.u8()
		b, ok := p.str(c)
		switch {
		case ok:
		case c == 0xc4:
			b = p.need(p.u8())
		case c == 0xc5:
			b = p.need(p.u16())
		case c == 0xc6:
			b = p.need(p.n32())
		default:
			p.bad = true
			return nil
		}
		if p.bad {
			return nil
		}
		k := p.key(b)
		if _, dup := m[k]; dup {
			p.bad = true
			return nil
		}
		m[k] = p.value(depth + 1)
	}
	return m
}
