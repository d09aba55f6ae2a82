// This file holds the bytes of stored objects: a blob is immutable once
// written. In memory (objects_mem.go) it is kept in memory when small and
// in a file of the service's spill folder (spill.go) when large, so that
// a 5 GiB upload never has to fit in memory (the platform's own memory
// then stays flat in benchmarks, too); such blobs are reference counted:
// an object holds one reference, a copy of it another, a reader one while
// it reads; the file goes when the last one is released. In a data folder
// (objects_bolt.go) a blob is a file of the blob folder, named in the
// object's record, and a reference is an open file, closed on release.
// It serves no URI.

package fleetfiles

import (
	"bytes"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"sync/atomic"
)

// spillAbove is the size above which an upload is written to a file
// instead of memory.
const spillAbove = 1 << 20

// blob is the immutable content of an object.
type blob struct {
	size   int64
	md5    string // hex: the etag
	sha256 string // hex
	mem    []byte
	file   *os.File      // nil for a blob in memory, or one of the data folder not open
	name   string        // the blob's name in the data folder's blob folder; "" in memory
	check  *contentCheck // a data folder's blob, checked as it is read (verify.go); nil otherwise
	refs   atomic.Int64
}

// newMemBlob returns a blob holding data (not copied), with one reference.
func newMemBlob(data []byte) *blob {
	m, s := md5.Sum(data), sha256.Sum256(data)
	b := &blob{size: int64(len(data)), md5: hex.EncodeToString(m[:]), sha256: hex.EncodeToString(s[:]), mem: data}
	b.refs.Store(1)
	return b
}

// ReadAt reads the blob's bytes at off. A data folder's blob is checked
// against its record first (verify.go): a read of the whole blob hashes
// what it reads, a read of a part reads the blob whole once to check it.
func (b *blob) ReadAt(p []byte, off int64) (int, error) {
	if b.file == nil {
		return bytes.NewReader(b.mem).ReadAt(p, off)
	}
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

// reader returns a reader of the whole blob, which checks a data folder's
// blob as it reads (verify.go).
func (b *blob) reader() io.ReadSeeker {
	if b.check != nil {
		return newCheckedReader(b)
	}
	return io.NewSectionReader(b, 0, b.size)
}

// bytes returns a copy of the blob's content.
func (b *blob) bytes() ([]byte, error) {
	out := make([]byte, b.size)
	if _, err := b.ReadAt(out, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out, nil
}

// acquire takes a reference; the caller holds a reference already (the
// object's, under the bucket's lock).
func (b *blob) acquire() *blob {
	b.refs.Add(1)
	return b
}

// release drops a reference; the last one closes the file, and removes
// it when it is a spill file.
func (b *blob) release() {
	if b.refs.Add(-1) == 0 && b.file != nil {
		path := b.file.Name()
		_ = b.file.Close()
		if b.name == "" {
			_ = os.Remove(path)
		}
	}
}

// spillWriter receives the bytes of an upload kept in memory: in memory
// up to spillAbove of announced size, in a spill file above.
type spillWriter struct {
	buf  bytes.Buffer
	file *os.File
	n    int64
	md5  hash.Hash
	sha  hash.Hash
}

// newBlobWriter starts a blob of the announced size.
func (d *spillDir) newBlobWriter(size int64) (*spillWriter, error) {
	w := &spillWriter{md5: md5.New(), sha: sha256.New()}
	if size > spillAbove {
		dir, err := d.path()
		if err != nil {
			return nil, fmt.Errorf("spill directory: %w", err)
		}
		if w.file, err = os.CreateTemp(dir, "blob-"); err != nil {
			return nil, err
		}
	} else {
		w.buf.Grow(int(size))
	}
	return w, nil
}

// Write appends to the blob.
func (w *spillWriter) Write(p []byte) (int, error) {
	var n int
	var err error
	if w.file != nil {
		n, err = w.file.Write(p)
	} else {
		n, err = w.buf.Write(p)
	}
	w.md5.Write(p[:n])
	w.sha.Write(p[:n])
	w.n += int64(n)
	return n, err
}

// ReadFrom copies r into the blob with a large buffer.
func (w *spillWriter) ReadFrom(r io.Reader) (int64, error) { return copyLarge(w, r) }

// copyLarge copies r into w with a large buffer.
func copyLarge(w io.Writer, r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	return io.CopyBuffer(struct{ io.Writer }{w}, r, buf)
}

// finish returns the written blob, with one reference.
func (w *spillWriter) finish() (*blob, error) {
	b := &blob{size: w.n, md5: hex.EncodeToString(w.md5.Sum(nil)), sha256: hex.EncodeToString(w.sha.Sum(nil)), file: w.file}
	if w.file == nil {
		b.mem = w.buf.Bytes()
	}
	b.refs.Store(1)
	return b, nil
}

// abort drops what was written.
func (w *spillWriter) abort() {
	if w.file != nil {
		name := w.file.Name()
		_ = w.file.Close()
		_ = os.Remove(name)
	}
}
