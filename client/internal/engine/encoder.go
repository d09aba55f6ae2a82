// This file holds Encoder: one value written in the link's format (msgpack
// or JSON) piece by piece, so that the client can send a handler's result
// straight from a Go value without building its map[string]any first. What
// it writes is what encode writes for the same value in wire form (the
// tests hold the two together), within the same nesting bound.

package engine

import (
	"strconv"

	"github.com/flockgo/ironflock/internal/msgpackform"
)

// Encoder writes one value, the single positional argument of a message:
// scalars, lists and maps of a known length (a map's entries each a Key
// then a value), and values in wire form (Value). The first failure stops
// it.
type Encoder struct {
	b    []byte
	json bool
	// depth is the containers open around the cursor, the message's
	// argument list included; open tells, per depth, whether a container
	// there is a map (JSON: its closing bracket) and whether it has an
	// element already (JSON: a separator before the next).
	depth  int
	isMap  [maxDepth + 1]bool
	filled [maxDepth + 1]bool
	keyed  bool // JSON: a key was written, its value comes next
	err    error
}

// rawValue is a value encoded already: an Encoder's, written as it is.
type rawValue struct{ b []byte }

// reset makes e write a fresh value into buf[:0].
func (e *Encoder) reset(buf []byte, json bool) {
	*e = Encoder{b: buf[:0], json: json, depth: 1}
}

// Err returns the first failure, nil when there was none.
func (e *Encoder) Err() error { return e.err }

// elem starts a value: the separator JSON needs before it.
func (e *Encoder) elem() {
	if !e.json {
		return
	}
	if e.keyed {
		e.keyed = false
		return
	}
	if e.filled[e.depth] {
		e.b = append(e.b, ',')
	}
	e.filled[e.depth] = true
}

// Nil writes null.
func (e *Encoder) Nil() {
	e.elem()
	if e.json {
		e.b = append(e.b, "null"...)
	} else {
		e.b = append(e.b, 0xc0)
	}
}

// Bool writes a boolean.
func (e *Encoder) Bool(v bool) {
	e.elem()
	switch {
	case e.json:
		e.b = strconv.AppendBool(e.b, v)
	case v:
		e.b = append(e.b, 0xc3)
	default:
		e.b = append(e.b, 0xc2)
	}
}

// Int writes an integer.
func (e *Encoder) Int(v int64) {
	e.elem()
	e.b = appendIntAs(e.b, e.json, v)
}

// Uint writes an unsigned integer (the wire form's uint64, above
// math.MaxInt64).
func (e *Encoder) Uint(v uint64) {
	e.elem()
	e.b = appendUintAs(e.b, e.json, v)
}

// Float writes a float64.
func (e *Encoder) Float(v float64) {
	e.elem()
	if e.json {
		e.b = appendJSONFloat(e.b, v, 64)
	} else {
		e.b = msgpackform.AppendFloat64(e.b, v)
	}
}

// String writes a string (in valid UTF-8, as the client's encoder makes
// every string).
func (e *Encoder) String(v string) {
	e.elem()
	e.b = appendStringAs(e.b, e.json, v)
}

// Value writes v, a value in wire form, as encode writes it.
func (e *Encoder) Value(v any) {
	if e.err != nil {
		return
	}
	e.elem()
	if e.json {
		e.b, e.err = appendJSON(e.b, v, e.depth)
	} else {
		e.b, e.err = appendValue(e.b, v, e.depth)
	}
}

// List starts a list of n elements; End ends it.
func (e *Encoder) List(n int) { e.open(n, false) }

// Map starts a map of n entries, each a Key and its value; End ends it.
func (e *Encoder) Map(n int) { e.open(n, true) }

func (e *Encoder) open(n int, isMap bool) {
	if e.err != nil {
		return
	}
	if e.depth >= maxDepth {
		e.err = errDepth
		return
	}
	e.elem()
	switch {
	case e.json && isMap:
		e.b = append(e.b, '{')
	case e.json:
		e.b = append(e.b, '[')
	case isMap:
		e.b = msgpackform.AppendMapHeader(e.b, n)
	default:
		e.b = msgpackform.AppendArrayHeader(e.b, n)
	}
	e.depth++
	e.isMap[e.depth], e.filled[e.depth] = isMap, false
}

// Key writes the key of the next map entry.
func (e *Encoder) Key(k string) {
	e.elem()
	if e.json {
		e.b = append(appendJSONString(e.b, k), ':')
		e.keyed = true
	} else {
		e.b = msgpackform.AppendString(e.b, k)
	}
}

// End ends the list or map started last.
func (e *Encoder) End() {
	if e.err != nil || e.depth <= 1 {
		return
	}
	if e.json {
		if e.isMap[e.depth] {
			e.b = append(e.b, '}')
		} else {
			e.b = append(e.b, ']')
		}
	}
	e.depth--
}
