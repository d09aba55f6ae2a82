// This file holds Blobs, a folder of the data folder in which a service
// keeps blobs: immutable files named by the service's records, each
// written whole and synced before it gets its name, so that a kill at any
// moment leaves whole blobs and unnamed temporary files, never half a
// blob under a name:
//
//	DIR/<folder>/
//	  .tmp-<random>       a blob being written (removed by RemoveTemps)
//	  <aa>/<name>         a blob: name is 32 hex digits, aa its first two
//
// A service writes a blob (Create, Write, Commit: the file is synced,
// renamed to its name and its folder synced), then records the name in
// its bbolt file; it removes the record before the blob. What a kill
// leaves between the two steps (a blob no record names) the service
// removes when it opens the folder again (Walk lists every blob by name).

package datadir

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// tempPrefix starts the name of a blob being written.
const tempPrefix = ".tmp-"

// blobName is what a blob's name must match.
var blobName = regexp.MustCompile(`^[0-9a-f]{32}$`)

// Blobs is a blob folder of the data folder (Dir.Blobs). It is safe for
// concurrent use.
type Blobs struct {
	dir  *Dir
	path string
}

// Blobs returns the blob folder name of the folder, created unless the
// folder is read-only. name follows DB's rule.
func (d *Dir) Blobs(name string) (*Blobs, error) {
	path, err := d.Folder(name)
	if err != nil {
		return nil, err
	}
	return &Blobs{dir: d, path: path}, nil
}

// Path returns the blob folder's path.
func (b *Blobs) Path() string { return b.path }

// file returns the path of the blob name.
func (b *Blobs) file(name string) (string, error) {
	if !blobName.MatchString(name) {
		return "", fmt.Errorf("data folder %s: %q is not a blob name", b.dir.path, name)
	}
	return filepath.Join(b.path, name[:2], name), nil
}

// BlobWriter receives the bytes of a new blob (Blobs.Create).
type BlobWriter struct {
	b   *Blobs
	f   *os.File
	err error // the first failure; Commit returns it
}

// Create starts a blob: its bytes go to a temporary file of the folder
// until Commit names it.
func (b *Blobs) Create() (*BlobWriter, error) {
	if b.dir.readOnly {
		return nil, fmt.Errorf("%w: %s", ErrReadOnly, b.dir.path)
	}
	f, err := os.CreateTemp(b.path, tempPrefix)
	if err != nil {
		return nil, fullError(b.dir.path, err)
	}
	return &BlobWriter{b: b, f: f}, nil
}

// Write appends p to the blob. On a full disk it fails with an error
// wrapping ErrFull.
func (w *BlobWriter) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	if err := w.b.dir.noSpace(); err != nil {
		w.err = fullError(w.b.dir.path, &fs.PathError{Op: "write", Path: w.f.Name(), Err: err})
		return 0, w.err
	}
	n, err := w.f.Write(p)
	if err != nil {
		w.err = fullError(w.b.dir.path, err)
	}
	return n, w.err
}

// ReadFrom copies r into the blob with a large buffer.
func (w *BlobWriter) ReadFrom(r io.Reader) (int64, error) {
	return io.CopyBuffer(struct{ io.Writer }{w}, r, make([]byte, 256<<10))
}

// Commit syncs the blob, gives it a new name and syncs its folder, and
// returns the name: from then on the blob is whole on disk. On failure
// nothing is left.
func (w *BlobWriter) Commit() (string, error) {
	tmp := w.f.Name()
	err := w.err
	if err == nil {
		err = w.b.dir.noSpace()
	}
	if err == nil {
		err = w.f.Sync()
	}
	err = errors.Join(err, w.f.Close())
	name := newBlobName()
	if err == nil {
		err = w.b.place(tmp, name)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return "", fullError(w.b.dir.path, err)
	}
	return name, nil
}

// Abort drops what was written.
func (w *BlobWriter) Abort() {
	_ = w.f.Close()
	_ = os.Remove(w.f.Name())
}

// place renames the synced file tmp to the blob name and syncs the
// folders whose entries changed.
func (b *Blobs) place(tmp, name string) error {
	path, err := b.file(name)
	if err != nil {
		return err
	}
	shard := filepath.Dir(path)
	if _, err := os.Stat(shard); errors.Is(err, fs.ErrNotExist) {
		if err := os.Mkdir(shard, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
		if err := syncDir(b.path); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(shard)
}

// newBlobName returns a fresh random blob name.
func newBlobName() string {
	raw := make([]byte, 16)
	_, _ = rand.Read(raw)
	return hex.EncodeToString(raw)
}

// Open opens the blob name for reading.
func (b *Blobs) Open(name string) (*os.File, error) {
	path, err := b.file(name)
	if err != nil {
		return nil, err
	}
	return os.Open(path)
}

// Link gives the content of the blob name a second, new name (a hard link;
// a copy where the file system has none), synced, and returns it.
func (b *Blobs) Link(name string) (string, error) {
	src, err := b.file(name)
	if err != nil {
		return "", err
	}
	if b.dir.readOnly {
		return "", fmt.Errorf("%w: %s", ErrReadOnly, b.dir.path)
	}
	if err := b.dir.noSpace(); err != nil {
		return "", fullError(b.dir.path, &fs.PathError{Op: "link", Path: src, Err: err})
	}
	tmp := filepath.Join(b.path, tempPrefix+newBlobName())
	if err := os.Link(src, tmp); err != nil {
		return b.copyBlob(name)
	}
	dst := newBlobName()
	if err := b.place(tmp, dst); err != nil {
		_ = os.Remove(tmp)
		return "", fullError(b.dir.path, err)
	}
	return dst, nil
}

// copyBlob copies the blob name to a new one.
func (b *Blobs) copyBlob(name string) (string, error) {
	in, err := b.Open(name)
	if err != nil {
		return "", err
	}
	defer in.Close()
	w, err := b.Create()
	if err != nil {
		return "", err
	}
	if _, err := w.ReadFrom(in); err != nil {
		w.Abort()
		return "", err
	}
	return w.Commit()
}

// Remove removes the blob name; one that is not there is no error. The
// removal is not synced: a blob a kill brings back is one no record
// names, which its service removes when it opens the folder again.
func (b *Blobs) Remove(name string) error {
	path, err := b.file(name)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// RemoveTemps removes the temporary files of blobs whose writing a kill
// cut short, and returns how many there were.
func (b *Blobs) RemoveTemps() (int, error) { return b.temps(true) }

// Temps returns how many temporary files of blobs whose writing a kill
// cut short the folder holds.
func (b *Blobs) Temps() (int, error) { return b.temps(false) }

// temps counts the temporary files, removing them when remove is true.
func (b *Blobs) temps(remove bool) (int, error) {
	entries, err := os.ReadDir(b.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), tempPrefix) {
			continue
		}
		if remove {
			if err := os.Remove(filepath.Join(b.path, e.Name())); err != nil {
				return n, err
			}
		}
		n++
	}
	return n, nil
}

// Walk calls fn with the name and size of every blob of the folder, in
// the order of their names. Temporary files and files that are not blobs
// are left out.
func (b *Blobs) Walk(fn func(name string, size int64) error) error {
	shards, err := os.ReadDir(b.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	for _, s := range shards {
		if !s.IsDir() || len(s.Name()) != 2 {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(b.path, s.Name()))
		if err != nil {
			return err
		}
		for _, e := range entries {
			if !e.Type().IsRegular() || !blobName.MatchString(e.Name()) || e.Name()[:2] != s.Name() {
				continue
			}
			fi, err := e.Info()
			if err != nil {
				return err
			}
			if err := fn(e.Name(), fi.Size()); err != nil {
				return err
			}
		}
	}
	return nil
}

// Describe returns the blob's path relative to the data folder, for
// messages.
func (b *Blobs) Describe(name string) string {
	path, err := b.file(name)
	if err != nil {
		return name
	}
	rel, err := filepath.Rel(b.dir.path, path)
	if err != nil {
		return path
	}
	return rel
}
