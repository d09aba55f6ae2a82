// This file holds the check of an object's content against the SHA-256
// of its record as it is served from a data folder: a blob damaged on
// disk is never handed out as the object.
//
//   - A read of the whole object from its start (files.read.get without a
//     range, Content, an HTTP GET without Range) hashes what it reads and
//     holds back its last bytes until the hash matches: a mismatch fails
//     the read, and an HTTP answer is cut (or answered 500 when nothing
//     was sent yet, fleetfiles' serve_object.go).
//   - A read of a part (a range, a seek) first reads the whole blob once
//     to check it; blobs are immutable, so a blob found whole is
//     remembered (checkedBlobs, up to maxChecked of them) and later parts
//     cost nothing more. Damage that happens on disk after that is not
//     seen until the next start.
//
// Cost: SHA-256 over what is read. BenchmarkContentCheck (a 64 MiB blob
// from the page cache, read and hashed) gives 274-340 MB/s on this
// project's development machine (2 shared cores, load average 22 while
// measured): a whole read costs that on top of sending the bytes, the
// first ranged read of a blob as much again for the whole blob, and
// flockd check that for every byte of every object.
//
// flockd check hashes every blob (CheckObjects); a start checks sizes only.

package folder

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"sync"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// checkedBlobs is the set of blobs of a data folder found whole in this
// process.
type checkedBlobs struct {
	mu    sync.Mutex
	names map[string]bool
}

func (c *checkedBlobs) has(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[name]
}

// maxChecked bounds the blobs remembered (about 100 bytes each): past
// it the set starts again empty, and blobs read again are checked again.
const maxChecked = 1 << 16

func (c *checkedBlobs) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil || len(c.names) >= maxChecked {
		c.names = map[string]bool{}
	}
	c.names[name] = true
}

// contentCheck is what a blob of a data folder needs to check its
// content: where the service remembers whole blobs, and what to call the
// blob in an error.
type contentCheck struct {
	checked *checkedBlobs
	where   string // the blob's path in the data folder
	object  string // "object KEY in namespace NS of REALM"
}

// damagedContent is the error of a blob whose content does not match
// its record.
func (b *blob) damagedContent(sum []byte) error {
	return fmt.Errorf("%w: %s: its content (SHA-256 %.12s…) does not match the record of %s (%.12s…); it is not served (restore a copy of the folder)",
		datadir.ErrDamaged, b.check.where, hex.EncodeToString(sum), b.check.object, b.sha256)
}

// known reports whether the blob need not be checked: it was found whole
// already.
func (b *blob) known() bool {
	return b.check.checked.has(b.name)
}

// checkWhole reads the whole blob and compares its hash with the record.
func (b *blob) checkWhole() error {
	if b.known() {
		return nil
	}
	h := sha256.New()
	n, err := io.Copy(h, io.NewSectionReader(b.file, 0, b.size))
	if err != nil {
		return fmt.Errorf("%s: %w", b.check.where, err)
	}
	return b.settle(h, n)
}

// settle compares the hash of the n bytes read with the record.
func (b *blob) settle(h hash.Hash, n int64) error {
	sum := h.Sum(nil)
	if n != b.size || hex.EncodeToString(sum) != b.sha256 {
		return b.damagedContent(sum)
	}
	b.check.checked.add(b.name)
	return nil
}

// checkedReader reads a blob of a data folder for http.ServeContent,
// checking it (see the file's comment).
type checkedReader struct {
	b      *blob
	pos    int64
	hashed int64 // bytes hashed from the start; -1 once a seek broke the run
	h      hash.Hash
	err    error // the damage found: every later read fails with it
}

func newCheckedReader(b *blob) *checkedReader {
	return &checkedReader{b: b, h: sha256.New()}
}

// Seek moves where the next read starts.
func (r *checkedReader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		offset += r.pos
	case io.SeekEnd:
		offset += r.b.size
	}
	if offset < 0 {
		return 0, errors.New("seek before the start of the object")
	}
	r.pos = offset
	return offset, nil
}

// Read reads at the current position.
func (r *checkedReader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	if r.pos >= r.b.size {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), r.b.size-r.pos)]
	run := r.pos == r.hashed && !r.b.known()
	if !run {
		if r.err = r.b.checkWhole(); r.err != nil {
			return 0, r.err
		}
	}
	n, err := r.b.file.ReadAt(p, r.pos)
	if errors.Is(err, io.EOF) && r.pos+int64(n) == r.b.size {
		err = nil
	}
	if run {
		r.h.Write(p[:n])
		r.hashed += int64(n)
		if r.hashed == r.b.size {
			if r.err = r.b.settle(r.h, r.hashed); r.err != nil {
				return 0, r.err // the last bytes are held back
			}
		}
	}
	r.pos += int64(n)
	return n, err
}
