// This file holds the check of a bbolt file's pages made by reading the
// file itself, before bbolt is given it: bbolt trusts its pages, and a
// damaged one makes it panic in goroutines of its own (the free list it
// rebuilds at open, Tx.Check), where no recover reaches; and when its
// newer meta page is damaged it falls back to the older one without a
// word, losing the last commit. So inspect:
//
//  1. reads both meta pages (page 0 and page 1): each must say it is a
//     meta page, carry bbolt's magic and version and the FNV-64a checksum
//     of its fields, and hold an even (page 0) or odd (page 1) commit id;
//     a damaged meta page is refused whichever it is, since nothing tells
//     whether it held the last commit (a kill cannot leave one half
//     written: bbolt writes it in one write within its first sector);
//  2. takes the newer one, as bbolt does, and compares the file's size
//     with what that commit needs (truncated);
//  3. walks the B+tree from the root bucket's page, every page once: its
//     header must name it, be a branch or a leaf page, stay below the
//     commit's high-water mark and within the file (with its overflow
//     pages), no page may be reached twice, every element must lie within
//     its page, keys must be in order within a page and within the range
//     their parent gives them (what bbolt's own check asserts in its
//     goroutine), every bucket value must hold a bucket header, and an
//     inline bucket a leaf page; a free-list page, when the file has one,
//     must be one, within the file, naming pages below the mark.
//
// What inspect passes, bbolt opens and walks without panicking: the
// damage test (platformtest/datadir_damage_test.go) flips bits all over
// files to show it.

package datadir

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"os"
)

// bbolt's on-disk layout (go.etcd.io/bbolt/internal/common), in the
// machine's byte order.
const (
	pageHeaderSize = 16 // id uint64, flags uint16, count uint16, overflow uint32
	elementSize    = 16 // a branch or leaf element
	bucketHeader   = 16 // root pgid uint64, sequence uint64
	metaSize       = 64 // the meta fields after the page header
	metaSumAt      = 56 // the checksum's offset within them

	branchPage   = 0x01
	leafPage     = 0x02
	metaPage     = 0x04
	freelistPage = 0x10
	bucketLeaf   = 0x01

	boltMagic   = 0xED0CDAED
	boltVersion = 2
	noFreelist  = ^uint64(0)

	maxDepth = 64 // deeper than any tree bbolt builds
)

var native = binary.NativeEndian

// meta is a bbolt meta page's fields.
type meta struct {
	pageSize uint32
	root     uint64 // the root bucket's page
	freelist uint64
	hwm      uint64 // pages in use: the file needs hwm × pageSize bytes
	txid     uint64
}

// fileState is what inspect found: the commit the file holds.
type fileState struct {
	txid uint64
}

// inspectError is a damage inspect found, told apart from a failure to
// read the file.
type inspectError struct{ what string }

func (e *inspectError) Error() string { return e.what }

func broken(format string, args ...any) error {
	return &inspectError{what: fmt.Sprintf(format, args...)}
}

// inspect checks the bbolt file f of size bytes (see the file's comment).
func inspect(f io.ReaderAt, size int64) (fileState, error) {
	if size < 2*1024 {
		return fileState{}, broken("truncated: the file holds %d bytes, too few for bbolt's two meta pages", size)
	}
	first := make([]byte, min(size, 4096))
	if _, err := f.ReadAt(first, 0); err != nil {
		return fileState{}, err
	}
	m0, err0 := parseMeta(first, 0)
	if errors.Is(err0, errVersion) {
		return fileState{}, broken("not a bbolt file of a version this program reads (%v)", err0)
	}
	var m1 meta
	var err1 error
	if err0 == nil {
		if int64(m0.pageSize)*2 > size {
			return fileState{}, broken("truncated: the file holds %d bytes, its meta pages need %d", size, 2*int64(m0.pageSize))
		}
		buf := make([]byte, pageHeaderSize+metaSize)
		if _, err := f.ReadAt(buf, int64(m0.pageSize)); err != nil {
			return fileState{}, err
		}
		m1, err1 = parseMeta(buf, 1)
	} else {
		var found bool
		if m1, found = findMeta1(f, size); !found && native.Uint32(first[pageHeaderSize:]) != boltMagic {
			return fileState{}, broken("not a bbolt file: neither meta page holds bbolt's magic number")
		}
	}
	switch {
	case err0 != nil:
		return fileState{}, broken("meta page 0 is damaged (%v); bbolt would fall back to meta page 1 (commit %d), which need not be the last commit", err0, m1.txid)
	case err1 != nil:
		return fileState{}, broken("meta page 1 is damaged (%v); bbolt would fall back to meta page 0 (commit %d), which need not be the last commit", err1, m0.txid)
	case m0.pageSize != m1.pageSize:
		return fileState{}, broken("the meta pages disagree on the page size (%d and %d)", m0.pageSize, m1.pageSize)
	}
	m := m0
	if m1.txid > m0.txid {
		m = m1
	}
	ps := int64(m.pageSize)
	if m.hwm < 2 || m.root < 2 || m.root >= m.hwm || (m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.hwm)) {
		return fileState{}, broken("meta page %d (commit %d) names pages outside the %d it says are in use (root %d, free list %d)", m.txid%2, m.txid, m.hwm, m.root, m.freelist)
	}
	if m.hwm > uint64(size/ps) {
		return fileState{}, broken("truncated: the file holds %d bytes, its last commit needs %d", size, m.hwm*uint64(ps))
	}
	w := &walker{f: f, m: m, seen: make([]uint64, (m.hwm+63)/64)}
	if m.freelist != noFreelist {
		if err := w.freelist(); err != nil {
			return fileState{}, err
		}
	}
	if _, err := w.page(m.root, nil, nil, 0); err != nil {
		return fileState{}, err
	}
	return fileState{txid: m.txid}, nil
}

var errVersion = errors.New("version mismatch")

// parseMeta reads the meta page id from buf, which starts with it.
func parseMeta(buf []byte, id uint64) (meta, error) {
	if len(buf) < pageHeaderSize+metaSize {
		return meta{}, errors.New("cut short")
	}
	b := buf[pageHeaderSize : pageHeaderSize+metaSize]
	m := meta{
		pageSize: native.Uint32(b[8:]),
		root:     native.Uint64(b[16:]),
		freelist: native.Uint64(b[32:]),
		hwm:      native.Uint64(b[40:]),
		txid:     native.Uint64(b[48:]),
	}
	h := fnv.New64a()
	h.Write(b[:metaSumAt])
	switch {
	case native.Uint32(b) != boltMagic:
		return m, errors.New("no magic number")
	case native.Uint32(b[4:]) != boltVersion:
		return m, fmt.Errorf("%w: bbolt format %d, want %d", errVersion, native.Uint32(b[4:]), boltVersion)
	case native.Uint64(b[metaSumAt:]) != h.Sum64():
		return m, errors.New("checksum mismatch")
	case native.Uint64(buf) != id || native.Uint16(buf[8:]) != metaPage:
		return m, fmt.Errorf("its header says page %d of type %#x", native.Uint64(buf), native.Uint16(buf[8:]))
	case m.txid%2 != id:
		return m, fmt.Errorf("commit %d belongs in meta page %d", m.txid, m.txid%2)
	case m.pageSize < 1024 || m.pageSize > 1<<24 || m.pageSize&(m.pageSize-1) != 0:
		return m, fmt.Errorf("page size %d", m.pageSize)
	}
	return m, nil
}

// findMeta1 looks for a valid meta page 1 at the page sizes bbolt tries.
func findMeta1(f io.ReaderAt, size int64) (meta, bool) {
	buf := make([]byte, pageHeaderSize+metaSize)
	for i := range 15 {
		pos := int64(1024) << i
		if pos+int64(len(buf)) > size {
			break
		}
		if _, err := f.ReadAt(buf, pos); err != nil {
			break
		}
		if m, err := parseMeta(buf, 1); err == nil && int64(m.pageSize) == pos {
			return m, true
		}
	}
	return meta{}, false
}

// walker walks a file's pages.
type walker struct {
	f    io.ReaderAt
	m    meta
	seen []uint64 // a bit per page below the mark
}

// read returns page id with its overflow pages, checking its header.
func (w *walker) read(id uint64, want uint16) ([]byte, error) {
	if id < 2 || id >= w.m.hwm {
		return nil, broken("page %d: out of range: the last commit uses pages 2 to %d", id, w.m.hwm-1)
	}
	ps := uint64(w.m.pageSize)
	buf := make([]byte, ps)
	if _, err := w.f.ReadAt(buf, int64(id*ps)); err != nil {
		return nil, fmt.Errorf("page %d: %w", id, err)
	}
	hid, flags, overflow := native.Uint64(buf), native.Uint16(buf[8:]), uint64(native.Uint32(buf[12:]))
	switch {
	case hid != id:
		return nil, broken("page %d: its header says page %d", id, hid)
	case flags&want == 0:
		return nil, broken("page %d: unexpected type %#x", id, flags)
	case id+overflow >= w.m.hwm:
		return nil, broken("page %d: its %d overflow pages pass the last page in use (%d)", id, overflow, w.m.hwm-1)
	}
	for p := id; p <= id+overflow; p++ {
		if w.seen[p/64]&(1<<(p%64)) != 0 {
			return nil, broken("page %d: reached twice", p)
		}
		w.seen[p/64] |= 1 << (p % 64)
	}
	if overflow > 0 {
		buf = make([]byte, (overflow+1)*ps)
		if _, err := w.f.ReadAt(buf, int64(id*ps)); err != nil {
			return nil, fmt.Errorf("page %d: %w", id, err)
		}
	}
	return buf, nil
}

// freelist checks the free-list page.
func (w *walker) freelist() error {
	id := w.m.freelist
	buf, err := w.read(id, freelistPage)
	if err != nil {
		return err
	}
	if native.Uint16(buf[8:]) != freelistPage {
		return broken("page %d: the free list's page is of type %#x", id, native.Uint16(buf[8:]))
	}
	count, at := uint64(native.Uint16(buf[10:])), uint64(pageHeaderSize)
	if count == 0xFFFF {
		if len(buf) < pageHeaderSize+8 {
			return broken("page %d: free list cut short", id)
		}
		count, at = native.Uint64(buf[pageHeaderSize:]), at+8
	}
	if count > (uint64(len(buf))-at)/8 {
		return broken("page %d: the free list names %d pages, more than its page holds", id, count)
	}
	for i := range count {
		if p := native.Uint64(buf[at+8*i:]); p < 2 || p >= w.m.hwm {
			return broken("page %d: the free list names page %d, outside pages 2 to %d", id, p, w.m.hwm-1)
		}
	}
	return nil
}

// page walks the branch or leaf page id, whose keys must be ≥ lo (when
// not nil) and < hi (when not nil); it returns the subtree's largest key.
func (w *walker) page(id uint64, lo, hi []byte, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, broken("page %d: the tree is deeper than %d levels", id, maxDepth)
	}
	buf, err := w.read(id, branchPage|leafPage)
	if err != nil {
		return nil, err
	}
	flags := native.Uint16(buf[8:])
	if flags != branchPage && flags != leafPage {
		return nil, broken("page %d: unexpected type %#x", id, flags)
	}
	return w.elements(fmt.Sprintf("page %d", id), buf, lo, hi, depth)
}

// elements checks the elements of the page in buf (a page of the file, or
// an inline bucket's) and walks what they lead to.
func (w *walker) elements(where string, buf, lo, hi []byte, depth int) ([]byte, error) {
	flags, count := native.Uint16(buf[8:]), uint64(native.Uint16(buf[10:]))
	n := uint64(len(buf))
	if pageHeaderSize+count*elementSize > n {
		return nil, broken("%s: %d elements do not fit in it", where, count)
	}
	if flags == branchPage && count == 0 {
		return nil, broken("%s: a branch page without elements", where)
	}
	var prev []byte // the largest key so far
	running := lo
	for i := range count {
		at := pageHeaderSize + i*elementSize
		e := buf[at : at+elementSize]
		var key, val []byte
		var child uint64
		if flags == branchPage {
			pos, ksize := uint64(native.Uint32(e)), uint64(native.Uint32(e[4:]))
			child = native.Uint64(e[8:])
			if at+pos+ksize > n {
				return nil, broken("%s: element %d lies outside the page", where, i)
			}
			key = buf[at+pos : at+pos+ksize]
		} else {
			eflags, pos, ksize, vsize := native.Uint32(e), uint64(native.Uint32(e[4:])), uint64(native.Uint32(e[8:])), uint64(native.Uint32(e[12:]))
			if eflags&^bucketLeaf != 0 {
				return nil, broken("%s: element %d has flags %#x", where, i, eflags)
			}
			if at+pos+ksize+vsize > n {
				return nil, broken("%s: element %d lies outside the page", where, i)
			}
			key, val = buf[at+pos:at+pos+ksize], buf[at+pos+ksize:at+pos+ksize+vsize]
			if eflags&bucketLeaf != 0 {
				if err := w.bucket(where, key, val, depth); err != nil {
					return nil, err
				}
			}
		}
		switch {
		case i == 0 && running != nil && bytes.Compare(running, key) > 0:
			return nil, broken("%s: key %q is below its parent's %q", where, key, running)
		case i > 0 && bytes.Compare(running, key) >= 0:
			return nil, broken("%s: key %q is not above the one before it, %q", where, key, running)
		case hi != nil && bytes.Compare(key, hi) >= 0:
			return nil, broken("%s: key %q is not below the next key of its parent, %q", where, key, hi)
		}
		if flags == branchPage {
			next := hi
			if i+1 < count {
				nat := pageHeaderSize + (i+1)*elementSize
				npos, nksize := uint64(native.Uint32(buf[nat:])), uint64(native.Uint32(buf[nat+4:]))
				if nat+npos+nksize > n {
					return nil, broken("%s: element %d lies outside the page", where, i+1)
				}
				next = buf[nat+npos : nat+npos+nksize]
			}
			top, err := w.page(child, key, next, depth+1)
			if err != nil {
				return nil, err
			}
			prev, running = top, top
			continue
		}
		prev, running = key, key
	}
	return bytes.Clone(prev), nil
}

// bucket checks the value of the bucket key found in where.
func (w *walker) bucket(where string, key, val []byte, depth int) error {
	if len(val) < bucketHeader {
		return broken("%s: bucket %q: its value of %d bytes holds no bucket header", where, key, len(val))
	}
	root := native.Uint64(val)
	if root != 0 {
		_, err := w.page(root, nil, nil, depth+1)
		return err
	}
	inline := val[bucketHeader:]
	if len(inline) < pageHeaderSize || native.Uint16(inline[8:]) != leafPage {
		return broken("%s: inline bucket %q does not hold a leaf page", where, key)
	}
	if depth > maxDepth {
		return broken("%s: buckets nested deeper than %d levels", where, maxDepth)
	}
	_, err := w.elements(fmt.Sprintf("%s: inline bucket %q", where, key), inline, nil, nil, depth+1)
	return err
}

// inspectFile opens path and inspects it.
func inspectFile(path string, size int64) (fileState, error) {
	f, err := os.Open(path)
	if err != nil {
		return fileState{}, err
	}
	defer f.Close()
	return inspect(f, size)
}
