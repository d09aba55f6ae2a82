// This file holds the stamp of a bucket's name: bbolt checks no key, and
// the folder's checksum (value.go) covers a value's key but not the names
// of the buckets it sits in, so one flipped bit in a bucket's name would
// make the bucket (a table's rows, a realm's objects) vanish unseen, and
// its service start it anew, empty. Every bucket a service creates
// through CreateBucket or NewBucket carries in its sequence number
// (bbolt's Bucket.Sequence, unused otherwise) a stamp made of a CRC-32C
// of its name, and the check at Open (check.go) refuses a bucket whose
// stamp does not match its name. A bucket of a folder written before
// stamps existed holds 0 and is stamped the next time a write creates or
// opens it through CreateBucket.

package datadir

import (
	"fmt"
	"hash/crc32"

	bolt "go.etcd.io/bbolt"
)

// stampMark marks a sequence number that is a stamp.
const stampMark = 0x5354_414d_0000_0000 // "STAM"

// stamp returns the stamp of a bucket named name.
func stamp(name []byte) uint64 { return stampMark | uint64(crc32.Checksum(name, castagnoli)) }

// checkStamp returns what is wrong with the stamp seq of bucket name, ""
// when nothing is.
func checkStamp(name []byte, seq uint64) string {
	if seq == 0 || seq == stamp(name) {
		return ""
	}
	return fmt.Sprintf("its name does not match the stamp it was created with (%#x): a damaged bucket name", seq)
}

// BucketMaker is what holds buckets: a *bolt.Tx or a *bolt.Bucket.
type BucketMaker interface {
	CreateBucketIfNotExists(name []byte) (*bolt.Bucket, error)
	CreateBucket(name []byte) (*bolt.Bucket, error)
}

// CreateBucket returns the bucket name of parent, creating it when it
// does not exist, stamped with its name (see the file's comment).
func CreateBucket(parent BucketMaker, name []byte) (*bolt.Bucket, error) {
	b, err := parent.CreateBucketIfNotExists(name)
	if err != nil {
		return nil, err
	}
	if b.Sequence() == 0 {
		if err := b.SetSequence(stamp(name)); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// NewBucket creates the bucket name of parent, which must not exist,
// stamped with its name.
func NewBucket(parent BucketMaker, name []byte) (*bolt.Bucket, error) {
	b, err := parent.CreateBucket(name)
	if err != nil {
		return nil, err
	}
	return b, b.SetSequence(stamp(name))
}
