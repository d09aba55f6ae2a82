// This file holds the memory store's byte bound (ByteLimit: flockd
// -memory-bytes): what a row costs the process, estimated from its values
// (rowBytes), counted over every realm beside the rows, so that rows of
// any size are bounded, not only their number. It serves no URI.

package memory

import "github.com/flockgo/ironflock/platformtest/internal/store"

// Usage returns the bytes the rows of a memory store hold, as
// estimated for ByteLimit, and whether it refuses appends at a
// bound; 0 and false for another store.
func Usage(st store.Rows) (bytes int64, full bool) {
	if m, ok := st.(*memStore); ok {
		return m.bytes.Load(), m.refusing.Load()
	}
	return 0, false
}

// memRowOverhead is what a stored row costs besides its values' own
// bytes: the memRow, its place in the table's slice, the growth of that
// slice, the value boxes and the implicit columns' copies. Measured:
// 1,000,000 rows of four small columns appended in bulks of 1,000 hold
// 291 MiB of live heap, about 305 bytes a row; this overhead with their
// values' estimate makes about 308 (with 160 it made 361 MiB).
const memRowOverhead = 90

// rowBytes estimates the bytes a stored row with values vals holds.
func rowBytes(vals []any) int64 {
	n := int64(memRowOverhead + 16*len(vals))
	for _, v := range vals {
		n += valueBytes(v)
	}
	return n
}

// valueBytes estimates the bytes a value holds besides its interface
// word pair: a string's bytes and header, a JSON value's keys, elements
// and their boxes; a number or a boolean its box.
func valueBytes(v any) int64 {
	switch x := v.(type) {
	case nil:
		return 0
	case string:
		return int64(len(x)) + 16
	case []byte:
		return int64(len(x)) + 24
	case map[string]any:
		n := int64(48)
		for k, e := range x {
			n += int64(len(k)) + 16 + 16 + valueBytes(e)
		}
		return n
	case []any:
		n := int64(24)
		for _, e := range x {
			n += 16 + valueBytes(e)
		}
		return n
	default:
		return 8
	}
}
