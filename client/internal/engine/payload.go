// This file holds rawPayload: the payload of a RESULT or INVOCATION the
// reader leaves encoded (lazy.go) until dispatch knows who takes it. Its
// taker either has it decoded into []any and map[string]any on the reader,
// as every payload was before, or takes a copy of its bytes, checked, to
// read with a Reader on its own goroutine.

package engine

import (
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/internal/wire"
)

// rawPayload is the payload elements of a message, still encoded: in
// msgpack, n values; in JSON, the rest of the message after its last
// header element, from the separator before the first payload element to
// the closing bracket.
type rawPayload struct {
	b    []byte
	n    int
	json bool
	lazy bool // set: the message was read lazily and this is its payload
}

// errMalformed reports a msgpack payload the parser refuses.
var errMalformed = errors.New("malformed msgpack")

// decode builds the payload's arguments in wire form, as decode reads a
// whole message: keys caches the map keys, stack is the JSON parser's
// scratch.
func (r rawPayload) decode(keys *keyCache, stack *[]any) ([]any, map[string]any, error) {
	if !r.json {
		p := parser{b: r.b, keys: keys}
		args, kwargs := p.payload(r.n)
		if p.bad || len(p.b) != 0 {
			return nil, nil, errMalformed
		}
		return args, kwargs, nil
	}
	if stack == nil {
		stack = new([]any)
	}
	p := jsonParser{b: r.b, keys: keys, stack: *stack}
	var els [2]any
	n := p.elements(func(i int) { els[i] = p.value(0) })
	clear(p.stack[:cap(p.stack)])
	*stack = p.stack[:0]
	if p.err != nil {
		return nil, nil, fmt.Errorf("malformed JSON: %w", p.err)
	}
	f := fields{l: els[:n], json: true}
	args, kwargs := f.payload()
	return args, kwargs, f.err
}

// check reads the payload as decode would, without building it, and
// fails where decode would.
func (r rawPayload) check() error {
	if !r.json {
		p := parser{b: r.b}
		if r.n >= 1 {
			if c := p.peek(); c != 0xc0 && !isArray(c) {
				return errMalformed
			}
			p.skip(0)
		}
		if r.n == 2 {
			if c := p.peek(); c != 0xc0 && !isMap(c) {
				return errMalformed
			}
			p.skip(0)
		}
		if p.bad || len(p.b) != 0 {
			return errMalformed
		}
		return nil
	}
	p := jsonParser{b: r.b}
	p.elements(func(i int) {
		p.ws()
		switch {
		case p.i >= len(p.b):
		case i == 0 && p.b[p.i] != '[' && p.b[p.i] != 'n':
			p.fail("a list expected")
		case i == 1 && p.b[p.i] != '{' && p.b[p.i] != 'n':
			p.fail("a dictionary expected")
		}
		p.skip(0)
	})
	if p.err != nil {
		return fmt.Errorf("malformed JSON: %w", p.err)
	}
	return nil
}

// copyTo returns r with its bytes appended to buf[:0], for a taker that
// reads them after the link read on.
func (r rawPayload) copyTo(buf []byte) rawPayload {
	r.b = append(buf[:0], r.b...)
	return r
}

// encodePayload encodes args and kwargs into buf[:0] as the payload of a
// message read lazily; it returns the payload and the buffer.
func encodePayload(buf []byte, json bool, args []any, kwargs map[string]any) (rawPayload, []byte) {
	n := wire.PayloadElems(args, kwargs)
	w := writer{b: buf[:0], json: json}
	w.payload(n, args, kwargs)
	if json {
		w.b = append(w.b, ']')
	}
	return rawPayload{b: w.b, n: n, json: json, lazy: true}, w.b
}

// elements reads the payload elements of a JSON message from its
// separator on, each with read (given its index), and the end of the
// message; it returns their number, at most 2.
func (p *jsonParser) elements(read func(i int)) int {
	n := 0
	for p.err == nil {
		p.ws()
		switch {
		case p.i < len(p.b) && p.b[p.i] == ']':
			p.i++
			p.ws()
			if p.i != len(p.b) {
				p.fail("data after the message")
			}
			return n
		case n == 2:
			p.fail("more elements than the message takes")
		case p.i < len(p.b) && p.b[p.i] == ',':
			p.i++
			read(n)
			n++
		default:
			p.fail("',' or ']' expected")
		}
	}
	return n
}

// peek returns the next byte without reading it; 0 at the end.
func (p *parser) peek() int {
	if p.bad || len(p.b) == 0 {
		return 0
	}
	return int(p.b[0])
}

func isArray(c int) bool { return c >= 0x90 && c <= 0x9f || c == 0xdc || c == 0xdd }

func isMap(c int) bool { return c >= 0x80 && c <= 0x8f || c == 0xde || c == 0xdf }
