// This file holds the content of the memory store's objects: a blob is
// immutable once written, kept in memory when small and in a file of the
// store's spill folder (objects_spill.go) when large, so that a 5 GiB
// upload never has to fit in memory (the platform's own memory then stays
// flat in benchmarks, too). Blobs are reference counted: an object holds
// one reference, a copy of it another, a reader one while it reads; the
// file goes when the last one is released.

package memory

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
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// spillAbove is the size above which new content is written to a file
// instead of memory.
const spillAbove = 1 << 20

// blob is the immutable content of an object.
type blob struct {
	size   int64
	md5    string // hex: the etag
	sha256 string // hex
	mem    []byte
	file   *os.File // nil for a blob in memory
	refs   atomic.Int64
}

// ReadAt reads the blob's bytes at off.
func (b *blob) ReadAt(p []byte, off int64) (int, error) {
	if b.file == nil {
		return bytes.NewReader(b.mem).ReadAt(p, off)
	}
	return b.file.ReadAt(p, off)
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

// release drops a reference; the last one closes and removes the spill
// file.
func (b *blob) release() {
	if b.refs.Add(-1) == 0 && b.file != nil {
		path := b.file.Name()
		_ = b.file.Close()
		_ = os.Remove(path)
	}
}

// content is an open blob (store.Content): one reference, released by
// Close.
type content struct {
	b    *blob
	once sync.Once
}

func (c *content) ReadAt(p []byte, off int64) (int, error) { return c.b.ReadAt(p, off) }

func (c *content) Reader() io.ReadSeeker { return io.NewSectionReader(c.b, 0, c.b.size) }

func (c *content) Close() error {
	c.once.Do(c.b.release)
	return nil
}

// spillWriter receives the bytes of new content (store.Writer): in
// memory up to spillAbove of announced size, in a spill file above.
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
			return nil, fmt.Errorf("spill directory: %w", fullError(err))
		}
		if w.file, err = os.CreateTemp(dir, "blob-"); err != nil {
			return nil, fullError(err)
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
	return n, fullError(err)
}

// ReadFrom copies r into the blob with a large buffer.
func (w *spillWriter) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	return io.CopyBuffer(struct{ io.Writer }{w}, r, buf)
}

// finish returns the written blob, with one reference.
func (w *spillWriter) finish() *blob {
	b := &blob{size: w.n, md5: hex.EncodeToString(w.md5.Sum(nil)), sha256: hex.EncodeToString(w.sha.Sum(nil)), file: w.file}
	if w.file == nil {
		b.mem = w.buf.Bytes()
	}
	b.refs.Store(1)
	return b
}

// Abort drops what was written.
func (w *spillWriter) Abort() {
	if w.file != nil {
		name := w.file.Name()
		_ = w.file.Close()
		_ = os.Remove(name)
	}
}

// fullError marks a write that failed for a full disk (ENOSPC, EDQUOT)
// as store.ErrFull, keeping its message.
func fullError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fullErr{err}
	}
	return err
}

// fullErr is a write's failure on a full disk.
type fullErr struct{ err error }

func (e fullErr) Error() string   { return e.err.Error() }
func (e fullErr) Unwrap() []error { return []error{e.err, store.ErrFull} }
