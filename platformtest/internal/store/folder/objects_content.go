// This file holds the content of a data folder's object as it is read
// (store.Content): an open file of the blob folder, checked against the
// SHA-256 of its record as it is read (objects_verify.go).

package folder

import (
	"crypto/sha256"
	"errors"
	"io"
	"os"
)

// blob is an object's content open for reading.
type blob struct {
	size   int64
	sha256 string // hex, the record's
	file   *os.File
	name   string        // the blob's name in the blob folder
	check  *contentCheck // how it is checked (objects_verify.go)
}

// ReadAt reads the blob's bytes at off, checked against its record
// first: a read of the whole blob hashes what it reads, a read of a part
// reads the blob whole once to check it.
func (b *blob) ReadAt(p []byte, off int64) (int, error) {
	if b.known() {
		return b.file.ReadAt(p, off)
	}
	if off != 0 || int64(len(p)) < b.size {
		if err := b.checkWhole(); err != nil {
			return 0, err
		}
		return b.file.ReadAt(p, off)
	}
	n, err := b.file.ReadAt(p, 0)
	h := sha256.New()
	h.Write(p[:n])
	if serr := b.settle(h, int64(n)); serr != nil && (err == nil || errors.Is(err, io.EOF)) {
		return 0, serr
	}
	return n, err
}

// Reader returns a reader of the whole blob that checks it as it reads.
func (b *blob) Reader() io.ReadSeeker { return newCheckedReader(b) }

// Close closes the blob's file.
func (b *blob) Close() error { return b.file.Close() }
