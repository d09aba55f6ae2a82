// This file holds the checksum every stored value carries: a CRC-32C of
// the key and the value, in the 4 bytes before the value. bbolt checks its
// meta pages only; the checksum lets Open find a damaged value (or key)
// as well, before anything of the file is served.

package datadir

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"

	bolt "go.etcd.io/bbolt"
)

// sumSize is the size of a stored value's checksum.
const sumSize = 4

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

func sum(k, v []byte) uint32 {
	return crc32.Update(crc32.Checksum(k, castagnoli), castagnoli, v)
}

// Put stores v under k in b with its checksum. Read it back with Get or
// Value.
func Put(b *bolt.Bucket, k, v []byte) error {
	stored := make([]byte, sumSize, sumSize+len(v))
	binary.BigEndian.PutUint32(stored, sum(k, v))
	return b.Put(k, append(stored, v...))
}

// Get returns the value stored under k in b by Put, nil when there is
// none. A value whose checksum does not match is an error wrapping
// ErrDamaged. The value is bbolt's memory: valid only during the
// transaction, not to be changed.
func Get(b *bolt.Bucket, k []byte) ([]byte, error) {
	raw := b.Get(k)
	if raw == nil {
		return nil, nil
	}
	return Value(k, raw)
}

// Value checks a value stored by Put under k, as a cursor returns it, and
// returns it without its checksum (bbolt's memory, as for Get). A nil raw
// (a nested bucket) is an error.
func Value(k, raw []byte) ([]byte, error) {
	v, what := checkValue(k, raw)
	if what != "" {
		return nil, fmt.Errorf("%w: key %q: %s", ErrDamaged, k, what)
	}
	return v, nil
}

// checkValue returns the value without its checksum, or what is wrong.
func checkValue(k, raw []byte) (v []byte, what string) {
	if len(raw) < sumSize {
		return nil, fmt.Sprintf("value of %d bytes holds no checksum", len(raw))
	}
	v = raw[sumSize:]
	if binary.BigEndian.Uint32(raw) != sum(k, v) {
		return nil, "checksum mismatch"
	}
	return v, ""
}
