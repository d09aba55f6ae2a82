// This file holds Reader: a payload kept encoded (payload.go) read value
// by value, in msgpack or JSON, so that the client can decode a call's
// result or an invocation's arguments straight into a Go value without
// building their []any and map[string]any first. The values read are the
// ones the parsers would build (msgpack.go, json.go): the same kinds, the
// JSON binary convention applied; Value builds one where the client wants
// the wire form itself.

package engine

import (
	"encoding/base64"
	"errors"
)

// Kind is the kind of the value at a Reader's cursor, as the parsers
// would build it.
type Kind uint8

// The kinds of Reader.Kind.
const (
	KindNone   Kind = iota // no value: the end of the payload, or a failure
	KindNil                // null
	KindBool               // bool
	KindInt                // int64
	KindUint               // uint64 above math.MaxInt64
	KindFloat              // float64
	KindString             // string
	KindBinary             // []byte
	KindList               // []any
	KindMap                // map[string]any
	KindOther              // a value only Value reads (a msgpack timestamp)
)

// frame is a container a Reader entered: the elements left (msgpack), or
// whether the first is still to come and what ends it (JSON); for a map,
// the key read last.
type frame struct {
	left  int
	first bool
	end   byte
	isMap bool
	key   []byte
}

// Reader reads a payload value by value. Its text (Text, Key) is valid
// until the next read.
type Reader struct {
	json  bool
	mp    parser
	js    jsonParser
	depth int
	// The containers entered, innermost last: n of them, the first few in
	// inline, the others in deeper.
	inline [8]frame
	deeper []frame
	n      int
	// JSON: the scalar at the cursor as Kind read it (at peekAt, ending at
	// peekEnd; -1: none): a number, or a string's text and, when it
	// follows the binary convention, its bytes.
	peekAt, peekEnd int
	peekKind        Kind
	num             wireNumber
	text, bin       []byte
	err             error
	// texts keeps the short strings read, for the next payload: a Reader
	// is kept with its request or invocation.
	texts textCache
}

// errReader reports a payload the Reader cannot follow (it was checked as
// it arrived, so this is a defect, not the router's).
var errReader = errors.New("the payload does not read as it was checked")

// reset makes r read raw from its first payload element on.
func (r *Reader) reset(raw rawPayload) {
	r.json, r.depth, r.n, r.err, r.peekAt = raw.json, 0, 0, nil, -1
	if raw.json {
		r.js = jsonParser{b: raw.b, scratch: r.js.scratch}
		r.push(frame{end: ']'}) // the rest of the message, after the header
		return
	}
	r.mp = parser{b: raw.b}
	r.push(frame{left: raw.n})
}

// release lets go of what r read and of large buffers, keeping the
// others and its texts, for reuse.
func (r *Reader) release() {
	r.mp, r.err = parser{}, nil
	r.js = jsonParser{scratch: r.js.scratch[:0]}
	clear(r.inline[:])
	clear(r.deeper)
	r.deeper = r.deeper[:0]
	for _, b := range []*[]byte{&r.text, &r.bin, &r.js.scratch} {
		if cap(*b) > maxKeptBuffer {
			*b = nil
		}
	}
}

func (r *Reader) push(f frame) {
	if r.n < len(r.inline) {
		r.inline[r.n] = f
	} else {
		r.deeper = append(r.deeper[:r.n-len(r.inline)], f)
	}
	r.n++
}

// top returns the container entered last.
func (r *Reader) top() *frame {
	if i := r.n - 1; i < len(r.inline) {
		return &r.inline[i]
	}
	return &r.deeper[r.n-1-len(r.inline)]
}

func (r *Reader) fail() {
	if r.err == nil {
		r.err = errReader
	}
}

// Err returns the first failure, nil when there was none.
func (r *Reader) Err() error {
	if r.err == nil && r.json && r.js.err != nil {
		r.err = r.js.err
	}
	if r.err == nil && !r.json && r.mp.bad {
		r.err = errReader
	}
	return r.err
}

// First moves to the value a decoder takes from a payload: the first
// positional argument when there is one, else the keyword arguments when
// there are some; false when there is neither (decode null then).
func (r *Reader) First() bool {
	if !r.Next() {
		return false
	}
	switch r.Kind() {
	case KindList:
		r.List()
		if r.Next() {
			return true
		}
	default:
		r.Skip()
	}
	if !r.Next() {
		return false
	}
	if r.Kind() == KindMap {
		return true
	}
	r.Skip()
	return false
}

// Kind returns the kind of the value at the cursor.
func (r *Reader) Kind() Kind {
	if r.err != nil {
		return KindNone
	}
	if r.json {
		return r.jsonKind()
	}
	p := &r.mp
	if p.bad || len(p.b) == 0 {
		return KindNone
	}
	switch c := p.b[0]; {
	case c <= 0x7f, c >= 0xe0, c >= 0xd0 && c <= 0xd3, c >= 0xcc && c <= 0xce:
		return KindInt
	case c == 0xcf:
		if len(p.b) >= 9 && p.b[1]&0x80 != 0 {
			return KindUint
		}
		return KindInt
	case c >= 0xa0 && c <= 0xbf, c >= 0xd9 && c <= 0xdb:
		return KindString
	case c >= 0x90 && c <= 0x9f, c == 0xdc, c == 0xdd:
		return KindList
	case c >= 0x80 && c <= 0x8f, c == 0xde, c == 0xdf:
		return KindMap
	case c == 0xc0:
		return KindNil
	case c == 0xc2, c == 0xc3:
		return KindBool
	case c >= 0xc4 && c <= 0xc6:
		return KindBinary
	case c == 0xca, c == 0xcb:
		return KindFloat
	}
	return KindOther
}

func (r *Reader) jsonKind() Kind {
	p := &r.js
	p.ws()
	if p.err != nil || p.i >= len(p.b) {
		return KindNone
	}
	if r.peekAt == p.i {
		return r.peekKind
	}
	switch c := p.b[p.i]; {
	case c == '"':
		r.peekScalar(r.peekText)
	case c == '-' || c >= '0' && c <= '9':
		r.peekScalar(r.peekNumber)
	case c == '[':
		return KindList
	case c == '{':
		return KindMap
	case c == 't' || c == 'f':
		return KindBool
	case c == 'n':
		return KindNil
	default:
		return KindNone
	}
	return r.peekKind
}

// peekScalar reads the JSON scalar at the cursor with read, which sets
// peekKind, and notes it as the one at the cursor, which stays where it
// is.
func (r *Reader) peekScalar(read func()) {
	p := &r.js
	at := p.i
	read()
	r.peekAt, r.peekEnd = at, p.i
	p.i = at
	if p.err != nil {
		r.peekKind = KindNone
	}
}

// peekNumber reads a number into r.num.
func (r *Reader) peekNumber() {
	r.num = r.js.num()
	switch r.num.kind {
	case 'i':
		r.peekKind = KindInt
	case 'u':
		r.peekKind = KindUint
	default:
		r.peekKind = KindFloat
	}
}

// peekText reads a string into r.text and, when it follows the binary
// convention (a NUL, then standard base64), its bytes into r.bin.
func (r *Reader) peekText() {
	r.text = append(r.text[:0], r.js.text()...)
	r.peekKind = KindString
	if len(r.text) > 0 && r.text[0] == 0 {
		if b, err := base64.StdEncoding.AppendDecode(r.bin[:0], r.text[1:]); err == nil {
			r.bin = b
			r.peekKind = KindBinary
		}
	}
}

// take moves past the JSON scalar at the cursor, read by Kind; false when
// there is none of one of kinds.
func (r *Reader) take(kinds ...Kind) bool {
	k := r.Kind()
	for _, want := range kinds {
		if k == want {
			r.js.i = r.peekEnd
			r.peekAt = -1
			return true
		}
	}
	r.fail()
	return false
}

// Bool reads a KindBool value.
func (r *Reader) Bool() bool {
	if r.json {
		p := &r.js
		p.ws()
		r.peekAt = -1
		if p.i < len(p.b) && p.b[p.i] == 't' {
			p.literal("true")
			return true
		}
		p.literal("false")
		return false
	}
	switch r.mp.u8() {
	case 0xc3:
		return true
	case 0xc2:
		return false
	}
	r.fail()
	return false
}

// number reads a KindInt, KindUint or KindFloat value.
func (r *Reader) number() wireNumber {
	if r.json {
		if r.take(KindInt, KindUint, KindFloat) {
			return r.num
		}
		return wireNumber{}
	}
	n := r.mp.number()
	if n.kind == 0 {
		r.fail()
	}
	return n
}

// Int reads a KindInt value.
func (r *Reader) Int() int64 { return r.number().i }

// Uint reads a KindUint value.
func (r *Reader) Uint() uint64 { return r.number().u }

// Float reads a KindFloat value.
func (r *Reader) Float() float64 { return r.number().f }

// Text reads a KindString or KindBinary value: its bytes, valid until the
// next read.
func (r *Reader) Text() []byte {
	if r.json {
		k := r.Kind()
		if !r.take(KindString, KindBinary) {
			return nil
		}
		if k == KindBinary {
			return r.bin
		}
		return r.text
	}
	b := r.mp.mapKey() // a string, or binary: what a key may be
	if r.mp.bad {
		r.fail()
		return nil
	}
	return b
}

// String reads a KindString or KindBinary value as a string; a short one
// the Reader read before is returned again without an allocation.
func (r *Reader) String() string {
	b := r.Text()
	if len(b) > maxInternedKey {
		return string(b)
	}
	return r.texts.intern(b)
}

// Skip passes over the value at the cursor.
func (r *Reader) Skip() {
	if r.json {
		r.js.skip(r.depth)
		r.peekAt = -1
		return
	}
	r.mp.skip(r.depth)
}

// Value reads the value at the cursor in wire form, as the parsers build
// it (the JSON binary convention applied).
func (r *Reader) Value() any {
	if r.json {
		v := jsonBinaries(r.js.value(r.depth))
		r.peekAt = -1
		return v
	}
	return r.mp.value(r.depth)
}

// List enters the KindList value at the cursor: Next then moves from
// element to element.
func (r *Reader) List() { r.enter('[') }

// Map enters the KindMap value at the cursor: Next then moves from entry
// to entry, Key reads each key before its value.
func (r *Reader) Map() { r.enter('{') }

func (r *Reader) enter(open byte) {
	r.depth++
	if r.json {
		p := &r.js
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != open {
			r.fail()
			return
		}
		p.i++
		end := byte(']')
		if open == '{' {
			end = '}'
		}
		r.push(frame{first: true, end: end, isMap: open == '{'})
		return
	}
	n := 0
	if open == '[' {
		n = r.mp.arrayLen()
	} else {
		n = r.mp.mapLen()
	}
	r.push(frame{left: n, isMap: open == '{'})
}

// Next moves to the next element of the list or map entered last, or to
// the next payload element outside any; false at the end, which it
// leaves.
func (r *Reader) Next() bool {
	if r.err != nil || r.n == 0 {
		return false
	}
	f := r.top()
	if !r.json {
		if f.left == 0 || r.mp.bad {
			r.leave()
			return false
		}
		f.left--
		return true
	}
	p := &r.js
	p.ws()
	switch {
	case p.err != nil:
		r.fail()
		return false
	case p.i < len(p.b) && p.b[p.i] == f.end:
		p.i++
		r.leave()
		return false
	case f.first:
		// The first element of a container entered: no separator.
	case p.i < len(p.b) && p.b[p.i] == ',':
		p.i++
	default:
		r.fail()
		return false
	}
	f.first = false
	return true
}

func (r *Reader) leave() {
	r.n--
	if r.n > 0 {
		r.depth--
	}
}

// Key reads the key of the map entry Next moved to; the value follows.
// The key stays valid while the payload is read.
func (r *Reader) Key() []byte {
	var k []byte
	if r.json {
		var ok bool
		if k, ok = r.js.key(); !ok {
			r.fail()
		}
		r.peekAt = -1
	} else if k = r.mp.mapKey(); r.mp.bad {
		r.fail()
	}
	if r.n > 0 {
		r.top().key = k
	}
	return k
}

// Path names the value at the cursor for an error: root, then the key of
// each map entered on the way (root.a.b).
func (r *Reader) Path(root string) string {
	p := root
	for i := range r.n {
		var f *frame
		if i < len(r.inline) {
			f = &r.inline[i]
		} else {
			f = &r.deeper[i-len(r.inline)]
		}
		if f.isMap && f.key != nil {
			p += "." + string(f.key)
		}
	}
	return p
}
