// This file holds the JSON side of the codec (codec.go), with the WAMP
// JSON conventions: a binary value travels as a string of a NUL character
// followed by its standard base64, and a float JSON cannot carry (NaN,
// ±Inf) as null. Floats keep a fraction or an exponent (2.0, not 2), so
// that they are read back as floats. Reading parses straight into the
// SDK's value types (jsonParser): integers as int64 (uint64 above
// math.MaxInt64), other numbers as float64.

package engine

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// appendJSON appends v as JSON; an error for a type outside the wire form
// or nesting beyond maxDepth.
func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendJSONString(b, x), nil
	case int64:
		return appendJSONInt(b, x), nil
	case int:
		return appendJSONInt(b, int64(x)), nil
	case int32:
		return appendJSONInt(b, int64(x)), nil
	case int16:
		return appendJSONInt(b, int64(x)), nil
	case int8:
		return appendJSONInt(b, int64(x)), nil
	case uint64:
		return appendJSONUint(b, x), nil
	case uint:
		return appendJSONUint(b, uint64(x)), nil
	case uint32:
		return appendJSONUint(b, uint64(x)), nil
	case uint16:
		return appendJSONUint(b, uint64(x)), nil
	case uint8:
		return appendJSONUint(b, uint64(x)), nil
	case float64:
		return appendJSONFloat(b, x, 64), nil
	case float32:
		return appendJSONFloat(b, float64(x), 32), nil
	case []byte:
		if x == nil {
			return append(b, "null"...), nil
		}
		b = append(b, `"\u0000`...)
		b = base64.StdEncoding.AppendEncode(b, x)
		return append(b, '"'), nil
	case []any:
		return appendJSONList(b, x, depth)
	case map[string]any:
		return appendJSONDict(b, x, depth)
	case *rawValue:
		return append(b, x.b...), nil
	}
	return b, unsupported(v)
}

func appendJSONList(b []byte, l []any, depth int) ([]byte, error) {
	if l == nil {
		return append(b, "null"...), nil
	}
	if depth >= maxDepth {
		return b, errDepth
	}
	b = append(b, '[')
	for i, e := range l {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = appendJSON(b, e, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, ']'), nil
}

func appendJSONDict(b []byte, d map[string]any, depth int) ([]byte, error) {
	switch {
	case d == nil:
		return append(b, "null"...), nil
	case len(d) == 0 && depth < maxDepth:
		return append(b, "{}"...), nil // the options of most messages
	}
	if depth >= maxDepth {
		return b, errDepth
	}
	b = append(b, '{')
	first := true
	for k, e := range d {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(appendJSONString(b, k), ':')
		var err error
		if b, err = appendJSON(b, e, depth+1); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

func appendJSONInt(b []byte, i int64) []byte   { return strconv.AppendInt(b, i, 10) }
func appendJSONUint(b []byte, u uint64) []byte { return strconv.AppendUint(b, u, 10) }

// appendJSONFloat writes f in the shortest form that reads back as the
// same float of bits bits, as encoding/json chooses it (exponent below
// 1e-6 and from 1e21 on), with ".0" on an integral value; NaN and ±Inf
// as null.
func appendJSONFloat(b []byte, f float64, bits int) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, f, format, -1, bits)
	if format == 'f' && bytes.IndexByte(b[start:], '.') < 0 {
		b = append(b, ".0"...)
	}
	return b
}

// appendJSONString writes s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
			b = append(append(b, s[start:i]...), `\ufffd`...)
			i++
			start = i
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\r':
			b = append(b, '\\', 'r')
		case '\t':
			b = append(b, '\\', 't')
		default:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	return append(append(b, s[start:]...), '"')
}

// decodeJSON reads a message as a list of values in normal form: numbers
// as int64, uint64 or float64 (jsonParser.number), strings as they are
// (binary values are converted in the payload only: jsonBinaries). keys
// caches the map keys; stack is the parser's scratch, kept by the link.
func decodeJSON(b []byte, keys *keyCache, stack *[]any) ([]any, error) {
	p := jsonParser{b: b, keys: keys, stack: *stack}
	p.ws()
	var l []any
	if p.i < len(p.b) && p.b[p.i] == '[' {
		l = p.array(0)
	} else {
		p.fail("a message is a list")
	}
	p.ws()
	if p.err == nil && p.i != len(p.b) {
		p.fail("data after the message")
	}
	clear(p.stack[:cap(p.stack)])
	*stack = p.stack[:0]
	if p.err != nil {
		return nil, fmt.Errorf("malformed JSON: %w", p.err)
	}
	return l, nil
}

// jsonParser reads JSON (RFC 8259) straight into the SDK's value types,
// as encoding/json reads it into an any, but for numbers (number), with
// no reflection, and with the bytes of strings kept as they are, invalid
// UTF-8 included, as msgpack keeps them (a lone surrogate escape is
// U+FFFD). A dictionary repeating a key is refused, as in msgpack (nexus
// reads the second value into the first one's type).
type jsonParser struct {
	b       []byte
	i       int
	keys    *keyCache // the link's map keys; nil keeps none
	stack   []any     // the elements of the lists being read
	scratch []byte    // the text of a string with escapes (text)
	err     error
}

func (p *jsonParser) fail(what string) {
	if p.err == nil {
		p.err = fmt.Errorf("%s at byte %d", what, p.i)
	}
}

// ws skips white space.
func (p *jsonParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// value reads one value.
func (p *jsonParser) value(depth int) any {
	p.ws()
	if p.err != nil || p.i >= len(p.b) {
		p.fail("a value expected")
		return nil
	}
	switch c := p.b[p.i]; {
	case c == '[':
		return p.array(depth + 1)
	case c == '{':
		return p.object(depth + 1)
	case c == '"':
		return p.str(false)
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == 't':
		p.literal("true")
		return true
	case c == 'f':
		p.literal("false")
		return false
	case c == 'n':
		p.literal("null")
		return nil
	}
	p.fail("a value expected")
	return nil
}

func (p *jsonParser) literal(word string) {
	if !bytes.HasPrefix(p.b[p.i:], []byte(word)) {
		p.fail("a value expected")
		return
	}
	p.i += len(word)
}

// array reads a list at '['; its elements gather on the stack, then move
// to a list of their number.
func (p *jsonParser) array(depth int) []any {
	if depth > maxDepth {
		p.err = errDepth
		return nil
	}
	p.i++
	base := len(p.stack)
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return []any{}
	}
	for p.err == nil {
		p.stack = append(p.stack, p.value(depth))
		p.ws()
		switch {
		case p.i < len(p.b) && p.b[p.i] == ',':
			p.i++
			continue
		case p.i < len(p.b) && p.b[p.i] == ']':
			p.i++
		default:
			p.fail("',' or ']' expected")
		}
		break
	}
	l := make([]any, len(p.stack)-base)
	copy(l, p.stack[base:])
	p.stack = p.stack[:base]
	return l
}

// object reads a dictionary at '{'.
func (p *jsonParser) object(depth int) map[string]any {
	if depth > maxDepth {
		p.err = errDepth
		return nil
	}
	p.i++
	m := map[string]any{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return m
	}
	for p.err == nil {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			p.fail("a key expected")
			break
		}
		k := p.str(true)
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			p.fail("':' expected")
			break
		}
		p.i++
		if _, dup := m[k]; dup {
			p.fail("a repeated key")
			break
		}
		m[k] = p.value(depth)
		p.ws()
		switch {
		case p.i < len(p.b) && p.b[p.i] == ',':
			p.i++
			continue
		case p.i < len(p.b) && p.b[p.i] == '}':
			p.i++
		default:
			p.fail("',' or '}' expected")
		}
		break
	}
	return m
}

// str reads a string at '"'; a key is kept in the link's key cache.
func (p *jsonParser) str(key bool) string {
	s := p.text()
	if key && p.keys != nil && len(s) <= maxInternedKey {
		return p.keys.intern(s)
	}
	return string(s)
}

// text reads a string at '"' and returns its bytes: the message's own
// when it has no escapes (read in one go), else decoded into the parser's
// scratch, valid until the next string is read.
func (p *jsonParser) text() []byte {
	p.i++
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s
		case c == '\\' || c < 0x20:
			return p.textSlow(start)
		}
		p.i++
	}
	p.fail("unterminated string")
	return nil
}

// textSlow reads on a string with escapes from p.i, its start at start,
// into the parser's scratch.
func (p *jsonParser) textSlow(start int) []byte {
	buf := append(p.scratch[:0], p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			p.scratch = buf
			return buf
		case c < 0x20:
			p.fail("a control character in a string")
			return nil
		case c != '\\':
			buf = append(buf, c)
			p.i++
		default:
			r, ok := p.escape()
			if !ok {
				return nil
			}
			buf = utf8.AppendRune(buf, r)
		}
	}
	p.fail("unterminated string")
	return nil
}

// escape reads an escape at '\\': a surrogate pair in two \u escapes is
// one rune, a lone surrogate U+FFFD.
func (p *jsonParser) escape() (rune, bool) {
	if p.i+1 >= len(p.b) {
		p.fail("unterminated escape")
		return 0, false
	}
	c := p.b[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return rune(c), true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return 0, false
		}
		if !utf16.IsSurrogate(r) {
			return r, true
		}
		if bytes.HasPrefix(p.b[p.i:], []byte("\\u")) {
			save := p.i
			p.i += 2
			if r2, ok := p.hex4(); ok {
				if c := utf16.DecodeRune(r, r2); c != utf8.RuneError {
					return c, true
				}
			}
			p.i, p.err = save, nil
		}
		return utf8.RuneError, true
	}
	p.fail("an unknown escape")
	return 0, false
}

// hex4 reads the four hex digits of a \u escape.
func (p *jsonParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		p.fail("a short \\u escape")
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			p.fail("a bad \\u escape")
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.i += 4
	return r, true
}

// wireNumber is a number read, in msgpack or JSON: an int64, a uint64
// (above math.MaxInt64) or a float64, as kind says; kind 0 when it could
// not be read.
type wireNumber struct {
	kind byte // 'i', 'u' or 'f'
	i    int64
	u    uint64
	f    float64
}

// value returns n in normal form.
func (n wireNumber) value() any {
	switch n.kind {
	case 'i':
		return n.i
	case 'u':
		return n.u
	case 'f':
		return n.f
	}
	return nil
}

// number reads a number in normal form (num).
func (p *jsonParser) number() any { return p.num().value() }

// num reads a number: with a fraction or an exponent, a float64; else an
// int64, or a uint64 above math.MaxInt64, or a float64 beyond both
// (JavaScript writes 1e20 as 100000000000000000000). A float out of range
// is refused.
func (p *jsonParser) num() wireNumber {
	start := p.i
	digits, intEnd, _, ok := p.scanNumber()
	if !ok {
		return wireNumber{}
	}
	if p.i == intEnd { // no fraction, no exponent
		neg := p.b[start] == '-'
		var u uint64
		overflow := false
		for _, c := range p.b[digits:intEnd] {
			d := uint64(c - '0')
			if u > (math.MaxUint64-d)/10 {
				overflow = true
				break
			}
			u = u*10 + d
		}
		switch {
		case overflow:
		case !neg && u <= math.MaxInt64:
			return wireNumber{kind: 'i', i: int64(u)}
		case !neg:
			return wireNumber{kind: 'u', u: u}
		case u <= 1<<63:
			return wireNumber{kind: 'i', i: int64(-u)} // -(1<<63) wraps to math.MinInt64
		}
	}
	f, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	if err != nil {
		p.fail("a number out of range")
		return wireNumber{}
	}
	return wireNumber{kind: 'f', f: f}
}

// scanNumber passes over a number at p.i as JSON writes it and returns
// where its integer digits are (p.b[digits:intEnd]) and where its
// exponent's digits start (exp, 0 without one; they end at p.i); ok is
// false (having failed) when it breaks the grammar. A number with a
// fraction or an exponent ends after intEnd.
func (p *jsonParser) scanNumber() (digits, intEnd, exp int, ok bool) {
	if p.b[p.i] == '-' {
		p.i++
	}
	digits = p.i
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.skipDigits()
	default:
		p.fail("a digit expected")
		return 0, 0, 0, false
	}
	intEnd = p.i
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if !p.skipDigits() {
			p.fail("a digit expected")
			return 0, 0, 0, false
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		exp = p.i
		if !p.skipDigits() {
			p.fail("a digit expected")
			return 0, 0, 0, false
		}
	}
	return digits, intEnd, exp, true
}

// skipDigits skips digits; false when there was none.
func (p *jsonParser) skipDigits() bool {
	start := p.i
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
	}
	return p.i > start
}

// jsonBinaries converts, in place, the strings of the WAMP binary
// convention in a payload value to []byte.
func jsonBinaries(v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "\x00") {
			if b, err := base64.StdEncoding.DecodeString(x[1:]); err == nil {
				return b
			}
		}
	case []any:
		for i, e := range x {
			x[i] = jsonBinaries(e)
		}
	case map[string]any:
		for k, e := range x {
			if s, ok := e.(string); ok && !strings.HasPrefix(s, "\x00") {
				continue
			}
			x[k] = jsonBinaries(e)
		}
	}
	return v
}
