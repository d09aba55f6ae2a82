// This file holds how the data folder's store (folder.go) encodes what
// it keeps: row keys that order rows by (tsp, sequence), and values in a
// compact tagged form without field names, which reads back in the value
// forms of store.go. It serves no URI.
//
// A row key is 16 bytes: the tsp as a big-endian uint64 with its sign bit
// flipped (so that negative times sort first), then the row's sequence,
// big-endian. A row value is the number of slots, then one value per slot
// of its table's catalog (catalog.go); the tsp slot is NULL, as the
// key holds it. A value is a tag byte and its payload:
//
//	0 NULL  1 false  2 true
//	3 int64: zig-zag varint
//	4 float64: 8 bytes, little-endian IEEE 754
//	5 float64 holding a whole number below 2^53: zig-zag varint
//	6 string: uvarint length, bytes
//	7 list: uvarint count, values
//	8 map: uvarint count, then per entry a uvarint key length, the key
//	  and a value

package folder

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// Value tags.
const (
	tagNull byte = iota
	tagFalse
	tagTrue
	tagInt
	tagFloat
	tagWholeFloat
	tagString
	tagList
	tagMap
)

// rowKeySize is the size of a row key.
const rowKeySize = 16

// tspBits maps a tsp to bits that sort as the tsp does.
func tspBits(tsp int64) uint64 { return uint64(tsp) ^ 1<<63 }

// rowKey returns the key of the row with tsp and sequence seq.
func rowKey(tsp int64, seq uint64) []byte {
	k := make([]byte, rowKeySize)
	binary.BigEndian.PutUint64(k, tspBits(tsp))
	binary.BigEndian.PutUint64(k[8:], seq)
	return k
}

// tspKey returns the smallest key of the rows with tsp.
func tspKey(tsp int64) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 8), tspBits(tsp)) }

// keyTsp returns the tsp of a row key.
func keyTsp(k []byte) int64 { return int64(binary.BigEndian.Uint64(k) ^ 1<<63) }

// errCodec reports stored bytes that do not decode (a bug, or a file
// written by another program: the checksums rule out damage).
var errCodec = errors.New("undecodable stored value")

// appendValue appends the encoding of v, a value in the forms of store.go.
func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, tagNull), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), x), nil
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 && (x != 0 || !math.Signbit(x)) { // -0 keeps its sign as 8 bytes
			return binary.AppendVarint(append(b, tagWholeFloat), int64(x)), nil
		}
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(x)), nil
	case string:
		b = binary.AppendUvarint(append(b, tagString), uint64(len(x)))
		return append(b, x...), nil
	case []any:
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		var err error
		for _, e := range x {
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case map[string]any:
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(x)))
		var err error
		for k, e := range x {
			b = binary.AppendUvarint(b, uint64(len(k)))
			b = append(b, k...)
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("the data folder's store cannot keep a value of type %T", v)
}

// readValue decodes one value from b and returns the rest. Strings are
// copied: b may be bbolt's memory.
func readValue(b []byte) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, errCodec
	}
	tag, b := b[0], b[1:]
	switch tag {
	case tagNull:
		return nil, b, nil
	case tagFalse:
		return false, b, nil
	case tagTrue:
		return true, b, nil
	case tagInt, tagWholeFloat:
		n, w := binary.Varint(b)
		if w <= 0 {
			return nil, nil, errCodec
		}
		if tag == tagWholeFloat {
			return float64(n), b[w:], nil
		}
		return n, b[w:], nil
	case tagFloat:
		if len(b) < 8 {
			return nil, nil, errCodec
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:], nil
	case tagString:
		s, rest, err := readString(b)
		return s, rest, err
	case tagList:
		n, rest, err := readCount(b)
		if err != nil {
			return nil, nil, err
		}
		out := make([]any, n)
		for i := range out {
			if out[i], rest, err = readValue(rest); err != nil {
				return nil, nil, err
			}
		}
		return out, rest, nil
	case tagMap:
		n, rest, err := readCount(b)
		if err != nil {
			return nil, nil, err
		}
		out := make(map[string]any, n)
		for range n {
			var k string
			if k, rest, err = readString(rest); err != nil {
				return nil, nil, err
			}
			if out[k], rest, err = readValue(rest); err != nil {
				return nil, nil, err
			}
		}
		return out, rest, nil
	}
	return nil, nil, errCodec
}

// readString reads a length and that many bytes as a string.
func readString(b []byte) (string, []byte, error) {
	n, rest, err := readCount(b)
	if err != nil || n > len(rest) {
		return "", nil, errCodec
	}
	return string(rest[:n]), rest[n:], nil
}

// readCount reads a uvarint count no larger than the bytes left (each
// element takes at least one).
func readCount(b []byte) (int, []byte, error) {
	n, w := binary.Uvarint(b)
	if w <= 0 || n > uint64(len(b)-w) {
		return 0, nil, errCodec
	}
	return int(n), b[w:], nil
}

// decodeSlots returns a stored row's values by slot.
func decodeSlots(k, raw []byte) ([]any, error) {
	v, err := datadir.Value(k, raw)
	if err != nil {
		return nil, err
	}
	n, rest, err := readCount(v)
	if err != nil {
		return nil, err
	}
	slots := make([]any, n)
	for i := range slots {
		if slots[i], rest, err = readValue(rest); err != nil {
			return nil, err
		}
	}
	return slots, nil
}

// encodeSlots encodes values by slot, trailing NULLs left out.
func encodeSlots(slots []any) ([]byte, error) {
	n := len(slots)
	for n > 0 && slots[n-1] == nil {
		n--
	}
	b := binary.AppendUvarint(nil, uint64(n))
	var err error
	for _, v := range slots[:n] {
		if b, err = appendValue(b, v); err != nil {
			return nil, err
		}
	}
	return b, nil
}
