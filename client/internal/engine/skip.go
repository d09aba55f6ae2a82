// This file holds the validating skips of the codec: passing over a value
// in msgpack or JSON as the parsers would read it, refusing exactly what
// they refuse (truncation, forms outside the wire form, nesting beyond
// maxDepth, a map repeating a key), without building it. They check a
// payload kept encoded (payload.go) as the reader receives it, so that a
// malformed message still ends the link as it did when every payload was
// decoded on the reader.

package engine

import (
	"bytes"
	"math"
	"strconv"
)

// keySet holds the keys of one map being skipped, to refuse a repeated
// one as the parsers do. The first few are compared in place; a larger map
// moves to a Go map.
type keySet struct {
	small [8][]byte
	n     int
	more  map[string]struct{}
}

// add notes k (which must stay unchanged while the set is used) and
// reports whether it was there already.
func (s *keySet) add(k []byte) (repeated bool) {
	if s.more != nil {
		if _, ok := s.more[string(k)]; ok {
			return true
		}
		s.more[string(k)] = struct{}{}
		return false
	}
	for _, x := range s.small[:s.n] {
		if bytes.Equal(x, k) {
			return true
		}
	}
	if s.n < len(s.small) {
		s.small[s.n] = k
		s.n++
		return false
	}
	s.more = make(map[string]struct{}, 2*len(s.small))
	for _, x := range s.small[:s.n] {
		s.more[string(x)] = struct{}{}
	}
	s.more[string(k)] = struct{}{}
	return false
}

// skip passes over one value as value reads it.
func (p *parser) skip(depth int) {
	if depth > maxDepth {
		p.bad = true
		return
	}
	c := p.u8()
	if p.bad {
		return
	}
	switch {
	case c <= 0x7f, c >= 0xe0:
		return
	case c >= 0xa0 && c <= 0xbf:
		p.need(c & 0x1f)
		return
	case c >= 0x90 && c <= 0x9f:
		p.skipList(c&0x0f, depth)
		return
	case c >= 0x80 && c <= 0x8f:
		p.skipMap(c&0x0f, depth)
		return
	}
	switch c {
	case 0xc0, 0xc2, 0xc3:
	case 0xc4, 0xd9:
		p.need(p.u8())
	case 0xc5, 0xda:
		p.need(p.u16())
	case 0xc6, 0xdb:
		p.need(p.n32())
	case 0xcc, 0xd0:
		p.need(1)
	case 0xcd, 0xd1:
		p.need(2)
	case 0xca, 0xce, 0xd2:
		p.need(4)
	case 0xcb, 0xcf, 0xd3:
		p.need(8)
	case 0xd6, 0xd7, 0xc7:
		p.timestampBytes(c)
	case 0xdc:
		p.skipList(p.u16(), depth)
	case 0xdd:
		p.skipList(p.n32(), depth)
	case 0xde:
		p.skipMap(p.u16(), depth)
	case 0xdf:
		p.skipMap(p.n32(), depth)
	default:
		p.bad = true
	}
}

func (p *parser) skipList(n, depth int) {
	if p.bad || n > len(p.b) {
		p.bad = true
		return
	}
	for range n {
		p.skip(depth + 1)
	}
}

func (p *parser) skipMap(n, depth int) {
	p.entries(n, depth, nil)
}

// entries walks the n entries of a map (at depth) after its header,
// refusing a repeated key: take, when not nil, reads the value of each
// key it wants (returning true), and the values of the others are skipped.
func (p *parser) entries(n, depth int, take func(k []byte) bool) {
	if p.bad || n > len(p.b)/2 {
		p.bad = true
		return
	}
	var keys keySet
	for range n {
		k := p.mapKey()
		if p.bad || keys.add(k) {
			p.bad = true
			return
		}
		if take == nil || !take(k) {
			p.skip(depth + 1)
		}
	}
}

// mapKey reads the bytes of a map key: a string, or binary read as one.
func (p *parser) mapKey() []byte {
	c := p.u8()
	if b, ok := p.str(c); ok {
		return b
	}
	switch c {
	case 0xc4:
		return p.need(p.u8())
	case 0xc5:
		return p.need(p.u16())
	case 0xc6:
		return p.need(p.n32())
	}
	p.bad = true
	return nil
}

// skip passes over one value as value reads it.
func (p *jsonParser) skip(depth int) {
	p.ws()
	if p.err != nil || p.i >= len(p.b) {
		p.fail("a value expected")
		return
	}
	switch c := p.b[p.i]; {
	case c == '[':
		p.skipArray(depth + 1)
	case c == '{':
		p.skipObject(depth + 1)
	case c == '"':
		p.text()
	case c == '-' || c >= '0' && c <= '9':
		p.skipNumber()
	case c == 't':
		p.literal("true")
	case c == 'f':
		p.literal("false")
	case c == 'n':
		p.literal("null")
	default:
		p.fail("a value expected")
	}
}

// skipNumber passes over a number as num reads it. Only a number that
// may be beyond a float's range (num refuses it) is parsed: one whose
// integer digits and exponent make it 1e300 or more.
func (p *jsonParser) skipNumber() {
	start := p.i
	digits, intEnd, exp, ok := p.scanNumber()
	if !ok {
		return
	}
	scale := intEnd - digits // the number is below 10^scale
	switch {
	case exp == 0, p.b[exp-1] == '-':
	case p.i-exp > 4:
		scale = math.MaxInt32
	default:
		e, _ := strconv.Atoi(string(p.b[exp:p.i]))
		scale += e
	}
	if scale >= 300 {
		p.i = start
		p.num()
	}
}

func (p *jsonParser) skipArray(depth int) {
	if depth > maxDepth {
		p.err = errDepth
		return
	}
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return
	}
	for p.err == nil {
		p.skip(depth)
		if !p.next(']', "',' or ']' expected") {
			return
		}
	}
}

func (p *jsonParser) skipObject(depth int) {
	if depth > maxDepth {
		p.err = errDepth
		return
	}
	p.entries(depth, nil)
}

// entries walks the dictionary at its '{', refusing a repeated key: take,
// when not nil, reads the value of each key it wants (returning true),
// and the values of the others are skipped at depth.
func (p *jsonParser) entries(depth int, take func(k []byte) bool) {
	p.i++
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return
	}
	var keys keySet
	for p.err == nil {
		k, ok := p.key()
		if !ok {
			return
		}
		if keys.add(k) {
			p.fail("a repeated key")
			return
		}
		if take == nil || !take(k) {
			p.skip(depth)
		}
		if !p.next('}', "',' or '}' expected") {
			return
		}
	}
}

// key reads a dictionary key and the ':' after it; false on failure.
func (p *jsonParser) key() ([]byte, bool) {
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		p.fail("a key expected")
		return nil, false
	}
	start := p.i
	k := p.text()
	if p.err != nil {
		return nil, false
	}
	if len(k) != p.i-start-2 {
		// Decoded from escapes into the scratch, which the next string
		// reuses: kept apart (an escape always shortens the text).
		k = bytes.Clone(k)
	}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != ':' {
		p.fail("':' expected")
		return nil, false
	}
	p.i++
	return k, true
}

// next reads the separator after an element of a list or dictionary: true
// after ',' (another element follows), false after end (read) or on
// failure (what is then the error).
func (p *jsonParser) next(end byte, what string) bool {
	p.ws()
	switch {
	case p.err != nil:
	case p.i < len(p.b) && p.b[p.i] == ',':
		p.i++
		return true
	case p.i < len(p.b) && p.b[p.i] == end:
		p.i++
	default:
		p.fail(what)
	}
	return false
}
