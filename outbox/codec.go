// This file holds the codec of the values kept on disk: the wire form of
// a row (client.Encode: map[string]any, []any, string, int64, uint64,
// float64, bool, []byte, nil) as compact, exact bytes. JSON would lose
// []byte and the difference between 1 and 1.0; gob would need every type
// registered and spend more bytes on them.
//
// Each value is a tag byte followed by its body: varints for integers and
// lengths, the eight bytes of a float, raw bytes for strings and binary,
// the items of a list, the key/value pairs of a map (keys sorted).

package outbox

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
)

const (
	tagNil byte = iota
	tagFalse
	tagTrue
	tagInt    // zig-zag varint
	tagUint   // uvarint
	tagFloat  // 8 bytes, little endian IEEE 754
	tagString // uvarint length + bytes
	tagBytes  // uvarint length + bytes
	tagList   // uvarint count + values
	tagMap    // uvarint count + (uvarint key length + key + value)…
)

// maxDepth bounds the nesting the decoder follows; the client's encoder
// refuses deeper values, so only a damaged record gets there.
const maxDepth = 1000

// encodeWire appends the encoding of a wire value to dst.
func encodeWire(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(dst, tagNil), nil
	case bool:
		if x {
			return append(dst, tagTrue), nil
		}
		return append(dst, tagFalse), nil
	case int64:
		return binary.AppendVarint(append(dst, tagInt), x), nil
	case uint64:
		return binary.AppendUvarint(append(dst, tagUint), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(dst, tagFloat), math.Float64bits(x)), nil
	case string:
		dst = binary.AppendUvarint(append(dst, tagString), uint64(len(x)))
		return append(dst, x...), nil
	case []byte:
		dst = binary.AppendUvarint(append(dst, tagBytes), uint64(len(x)))
		return append(dst, x...), nil
	case []any:
		dst = binary.AppendUvarint(append(dst, tagList), uint64(len(x)))
		var err error
		for _, e := range x {
			if dst, err = encodeWire(dst, e); err != nil {
				return nil, err
			}
		}
		return dst, nil
	case map[string]any:
		dst = binary.AppendUvarint(append(dst, tagMap), uint64(len(x)))
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var err error
		for _, k := range keys {
			dst = binary.AppendUvarint(dst, uint64(len(k)))
			dst = append(dst, k...)
			if dst, err = encodeWire(dst, x[k]); err != nil {
				return nil, err
			}
		}
		return dst, nil
	}
	return nil, fmt.Errorf("%T is not a wire value", v)
}

// errDamaged reports bytes the codec did not write.
var errDamaged = errors.New("damaged value")

// decodeWire decodes one value from the front of b and returns the rest.
func decodeWire(b []byte) (any, []byte, error) {
	return decodeAt(b, 0)
}

func decodeAt(b []byte, depth int) (any, []byte, error) {
	if len(b) == 0 {
		return nil, nil, fmt.Errorf("%w: ends early", errDamaged)
	}
	if depth > maxDepth {
		return nil, nil, fmt.Errorf("%w: nested deeper than %d", errDamaged, maxDepth)
	}
	tag, b := b[0], b[1:]
	switch tag {
	case tagNil:
		return nil, b, nil
	case tagFalse:
		return false, b, nil
	case tagTrue:
		return true, b, nil
	case tagInt:
		v, n := binary.Varint(b)
		if n <= 0 {
			return nil, nil, fmt.Errorf("%w: bad integer", errDamaged)
		}
		return v, b[n:], nil
	case tagUint:
		v, n := binary.Uvarint(b)
		if n <= 0 {
			return nil, nil, fmt.Errorf("%w: bad integer", errDamaged)
		}
		return v, b[n:], nil
	case tagFloat:
		if len(b) < 8 {
			return nil, nil, fmt.Errorf("%w: short float", errDamaged)
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), b[8:], nil
	case tagString, tagBytes:
		s, rest, err := chunk(b)
		if err != nil {
			return nil, nil, err
		}
		if tag == tagString {
			return string(s), rest, nil
		}
		return append([]byte{}, s...), rest, nil
	case tagList:
		n, rest, err := count(b)
		if err != nil {
			return nil, nil, err
		}
		list := make([]any, n)
		for i := range list {
			if list[i], rest, err = decodeAt(rest, depth+1); err != nil {
				return nil, nil, err
			}
		}
		return list, rest, nil
	case tagMap:
		n, rest, err := count(b)
		if err != nil {
			return nil, nil, err
		}
		m := make(map[string]any, n)
		for range n {
			var k []byte
			if k, rest, err = chunk(rest); err != nil {
				return nil, nil, err
			}
			if m[string(k)], rest, err = decodeAt(rest, depth+1); err != nil {
				return nil, nil, err
			}
		}
		return m, rest, nil
	}
	return nil, nil, fmt.Errorf("%w: unknown tag %d", errDamaged, tag)
}

// chunk reads a uvarint length and that many bytes.
func chunk(b []byte) (data, rest []byte, err error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return nil, nil, fmt.Errorf("%w: bad length", errDamaged)
	}
	return b[k : k+int(n)], b[k+int(n):], nil
}

// count reads the number of items of a list or map; every item takes at
// least one byte, so a count beyond the bytes left is damage, not a
// reason to allocate.
func count(b []byte) (int, []byte, error) {
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)-k) {
		return 0, nil, fmt.Errorf("%w: bad count", errDamaged)
	}
	return int(n), b[k:], nil
}
