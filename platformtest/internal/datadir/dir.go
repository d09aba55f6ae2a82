// This file holds Dir, an open data folder: Open (lock, format, checks,
// upgrade), the bbolt files and blob folders it hands to the services,
// its size on disk, and Close.

package datadir

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Dir is an open data folder, held by this process until Close. It is
// safe for concurrent use.
type Dir struct {
	path     string
	lock     *os.File
	readOnly bool
	version  int
	files    []FileReport // what the check at Open found, by name
	copyPath string       // the copy made before an upgrade; "" without one
	log      *slog.Logger
	full     atomic.Bool // SimulateFull (full.go)
	record   *commits    // COMMITS, open for writing; nil read-only (commits.go)
	known    []string    // the files whose last commit COMMITS recorded, checked at Open
	refusing atomic.Bool // a full disk refused a write, logged once until one succeeds (full.go)

	mu     sync.Mutex
	dbs    map[string]*DB
	closed bool
}

// Option configures Open.
type Option func(*options)

type options struct {
	log      *slog.Logger
	readOnly bool
	format   format
}

// WithLogger sets the logger of the folder's events (upgrades). The
// default discards them.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.log = l
		}
	}
}

// ReadOnly opens the folder to check it: it must exist and hold a data
// folder, nothing in it is created, upgraded or written (but the lock
// file), and DB opens files read-only.
func ReadOnly() Option { return func(o *options) { o.readOnly = true } }

// withFormat replaces the current format (tests of the upgrade).
func withFormat(f format) Option { return func(o *options) { o.format = f } }

// Open opens the data folder at path, creating it when it does not exist
// (and ReadOnly is not given). It refuses a folder another process holds
// (ErrInUse), a folder of a newer format (ErrNewerFormat), a folder with
// a damaged file (ErrDamaged) and a non-empty folder that is not a data
// folder (ErrNotDataDir). A folder of an older format is copied beside
// itself and upgraded (CopyPath).
func Open(path string, opts ...Option) (*Dir, error) {
	o := options{log: slog.New(slog.DiscardHandler), format: current()}
	for _, opt := range opts {
		opt(&o)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("data folder %s: %w", path, err)
	}
	if err := prepare(abs, o.readOnly); err != nil {
		return nil, err
	}
	lock, err := lockDir(abs)
	if err != nil {
		return nil, err
	}
	d := &Dir{path: abs, lock: lock, readOnly: o.readOnly, log: o.log, dbs: map[string]*DB{}}
	if err := d.open(o.format); err != nil {
		_ = unlockDir(lock)
		return nil, err
	}
	return d, nil
}

// prepare makes sure path is a folder, creating it unless readOnly.
func prepare(path string, readOnly bool) error {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) && !readOnly:
		if err := os.MkdirAll(path, 0o700); err != nil {
			return fmt.Errorf("data folder %s: %w", path, err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("data folder %s: %w", path, err)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder", ErrNotDataDir, path)
	}
	return nil
}

// open reads the format, checks the files and upgrades an older folder.
func (d *Dir) open(f format) error {
	version, present, err := readFormat(d.path)
	if err != nil {
		return err
	}
	if !present {
		return d.create(f)
	}
	if version > f.version {
		return fmt.Errorf("%w: %s was written by data folder format %d; this flockd reads format %d and older: use a newer flockd",
			ErrNewerFormat, d.path, version, f.version)
	}
	d.version = version
	if err := d.checkFiles(); err != nil {
		return err
	}
	if version == f.version || d.readOnly {
		return d.keepRecord()
	}
	if d.copyPath, err = upgrade(d.path, version, f, d.log); err != nil {
		return err
	}
	d.version = f.version
	if err := d.checkFiles(); err != nil {
		return err
	}
	return d.keepRecord()
}

// keepRecord compares the files with COMMITS (commits.go) and, unless the
// folder is read-only, opens it to record the commits to come, writing it
// first when the folder has none yet (a new folder, or one written before
// COMMITS existed).
func (d *Dir) keepRecord() error {
	seq, txids, present, err := readCommits(d.path)
	if err != nil {
		return err
	}
	if present {
		if err := checkCommits(d.path, d.files, txids); err != nil {
			return err
		}
		d.known = d.known[:0]
		for name, id := range txids {
			if id > 0 {
				d.known = append(d.known, name)
			}
		}
	}
	if !present {
		// COMMITS is written before any file of the folder is: files
		// with stamped buckets (stamp.go, written by the same flockd
		// that keeps COMMITS) mean it was there and is lost.
		for _, f := range d.files {
			if f.stamped {
				return damaged(d.path, CommitsFile, "missing, but %s was written by a flockd that keeps it: without it a lost or older file cannot be told", f.Name)
			}
		}
	}
	if d.readOnly {
		return nil
	}
	if !present {
		txids = map[string]uint64{}
		for _, f := range d.files {
			if f.txid > 0 {
				txids[f.Name] = f.txid
			}
		}
		if err := writeCommits(d.path, 0, txids); err != nil {
			return err
		}
		if len(txids) > 0 {
			d.log.Info("data folder: the record of each file's last commit written", "folder", d.path, "file", CommitsFile)
		}
	}
	d.record, err = openCommits(d.path, seq, txids, d.log)
	return err
}

// create makes a new folder of format f; a folder holding anything but
// the lock file is not one to take.
func (d *Dir) create(f format) error {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return fmt.Errorf("data folder %s: %w", d.path, err)
	}
	var names []string
	for _, e := range entries {
		if e.Name() != LockFile {
			names = append(names, e.Name())
		}
	}
	if len(names) > 0 {
		if len(names) > 3 {
			names = append(names[:3], "…")
		}
		return fmt.Errorf("%w: %s holds %s but no %s file; give flockd an empty or new folder of its own",
			ErrNotDataDir, d.path, strings.Join(names, ", "), FormatFile)
	}
	if d.readOnly {
		return fmt.Errorf("%w: %s is empty: no data folder was written there yet", ErrNotDataDir, d.path)
	}
	d.version = f.version
	if err := writeFormat(d.path, f.version); err != nil {
		return err
	}
	return d.keepRecord()
}

// checkFiles checks every bbolt file of the folder (check.go).
func (d *Dir) checkFiles() error {
	entries, err := os.ReadDir(d.path)
	if err != nil {
		return fmt.Errorf("data folder %s: %w", d.path, err)
	}
	d.files = d.files[:0]
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), dbSuffix) {
			continue
		}
		rep, err := checkFile(d.path, e.Name())
		if err != nil {
			return err
		}
		d.files = append(d.files, rep)
	}
	return nil
}

// dbSuffix ends the name of every bbolt file of the folder.
const dbSuffix = ".db"

// namePattern is what the name of a service's file or folder must match.
var namePattern = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// Whole reports whether the file name (such as "files.db") is known to
// hold its last acknowledged commit: COMMITS recorded a commit of it
// before this Open, and the file holds it or a later one. A service
// removes what its records no longer name only from a file known whole:
// a file made anew, or one of a folder that had no COMMITS yet, may lack
// records.
func (d *Dir) Whole(name string) bool { return slices.Contains(d.known, name) }

// Path returns the folder's absolute path.
func (d *Dir) Path() string { return d.path }

// Format returns the folder's format version (after an upgrade, the
// current one).
func (d *Dir) Format() int { return d.version }

// CopyPath returns where Open copied the folder before upgrading it; ""
// when it did not.
func (d *Dir) CopyPath() string { return d.copyPath }

// Files returns what the check at Open found in each bbolt file, by name.
func (d *Dir) Files() []FileReport { return slices.Clone(d.files) }

// DB returns the bbolt file name+".db" of the folder, opening it (and
// creating it, unless the folder is read-only) on first use; later calls
// return the same DB. name is a service's: lower-case letters, digits and
// '-'. In a read-only folder a file that does not exist is an error
// wrapping fs.ErrNotExist.
func (d *Dir) DB(name string) (*DB, error) {
	if !namePattern.MatchString(name) {
		return nil, fmt.Errorf("data folder %s: file name %q: want lower-case letters, digits and '-'", d.path, name)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil, fmt.Errorf("%w: %s", ErrClosed, d.path)
	}
	if db := d.dbs[name]; db != nil {
		return db, nil
	}
	file := name + dbSuffix
	path := filepath.Join(d.path, file)
	if d.readOnly {
		if _, err := os.Stat(path); err != nil {
			return nil, fmt.Errorf("data folder %s: %w", d.path, err)
		}
	} else if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		d.log.Info("data folder file created", "folder", d.path, "file", file)
	}
	// The free list is not written at each commit (NoFreelistSync, as
	// etcd does): a commit writes a page less, and the list is rebuilt
	// from the pages in use when the file is opened, reading every page,
	// which trim then drops from the resident set. Durability does not
	// depend on it: a commit's pages and meta page are synced as before.
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: d.readOnly, FreelistType: bolt.FreelistMapType,
		NoFreelistSync: true, InitialMmapSize: mmapInitial})
	if err != nil {
		return nil, openError(d.path, file, err)
	}
	b.AllocSize = growStep
	if !d.readOnly {
		if err := syncDir(d.path); err != nil { // the new file's entry
			_ = b.Close()
			return nil, fmt.Errorf("data folder %s: %w", d.path, err)
		}
	}
	db := newDB(d, file, b)
	db.trim()
	d.dbs[name] = db
	return db, nil
}

// mmapInitial is the size of a file's first mapping on a 64-bit machine
// (none on a 32-bit one, whose address space is short). bbolt maps its
// file read-only and maps it again, larger, when a transaction's pages
// outgrow the mapping; before each remapping it copies every key and
// value of the transaction's nodes out of the old mapping, so that a
// large transaction (provisioning 100,000 devices: 40 MB) paid a copy of
// itself at each doubling, about 1 s of its 3.6. The mapping is address
// space, not memory: a page of it is resident only once read (and trim
// drops it again).
const mmapInitial = strconv.IntSize / 64 * (256 << 20)

// growStep is how much a file grows beyond what its last commit needs
// (bbolt's AllocSize). bbolt grows a file whose mapping is larger than its
// AllocSize (16 MiB by default) by AllocSize at once, to share the cost
// of growing (a truncate and a sync) between commits; with a large first
// mapping that would be 16 MiB of slack in every file, where a file cut
// short is not found truncated, and a new folder's few files would hold
// megabytes. 64 KiB still shares that cost: a file of rows written at
// 200 KB/s grows three times a second, each time one sync more.
const growStep = 64 << 10

// Folder returns the path of the sub-folder name of the folder, where a
// service keeps blobs, creating it unless the folder is read-only. name
// follows DB's rule. What the service writes there is its own to sync
// and to check when it opens it. A name that is there but not a folder is
// refused (ErrDamaged), read-only too, so that a check and a start agree.
func (d *Dir) Folder(name string) (string, error) {
	if !namePattern.MatchString(name) {
		return "", fmt.Errorf("data folder %s: folder name %q: want lower-case letters, digits and '-'", d.path, name)
	}
	path := filepath.Join(d.path, name)
	if fi, err := os.Lstat(path); err == nil && !fi.IsDir() {
		return "", fmt.Errorf("%w: data folder %s: %s is not a folder but a %s: move it away", ErrDamaged, d.path, name, fileKind(fi.Mode()))
	}
	if d.readOnly {
		return path, nil
	}
	if err := os.MkdirAll(path, 0o700); err != nil {
		return "", fmt.Errorf("data folder %s: %w", d.path, err)
	}
	return path, syncDir(d.path)
}

// Size returns the bytes the folder's files take, the lock file included.
func (d *Dir) Size() (int64, error) {
	var n int64
	err := filepath.WalkDir(d.path, func(_ string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) { // removed meanwhile
				return nil
			}
			return err
		}
		if e.Type().IsRegular() {
			if fi, err := e.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n, err
}

// Close closes every file (waiting for the commits in flight) and lets the
// folder go. Calling it more than once is harmless.
func (d *Dir) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	var errs []error
	for _, db := range d.dbs {
		errs = append(errs, db.close())
	}
	if d.record != nil {
		errs = append(errs, d.record.close())
	}
	errs = append(errs, unlockDir(d.lock))
	return errors.Join(errs...)
}

// fileKind names the kind of a file that is not a folder.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m&fs.ModeSymlink != 0:
		return "symbolic link"
	}
	return "special file"
}
