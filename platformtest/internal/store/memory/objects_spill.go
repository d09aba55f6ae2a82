// This file holds the spill folder: where the memory store keeps the
// content of objects above spillAbove in files (docs/fake.md, the file
// service).
//
// The spill folder (NewObjects' spillDir, by default DefaultSpillDir in
// the system's temporary folder) belongs to the fake platform and may be
// shared by several processes: every store keeps its files in a folder
// of its own inside it, <pid>-<process token>-<n>, made on first use and
// removed by Close. A process that is killed cannot remove its folder, so
// a new store removes, when it is made, the folders of processes that
// are gone: those whose process ID no longer runs, and those with this
// process's ID but another token (an earlier process with the same ID, as
// a container's flockd has on every start). Anything else in the spill
// folder is left alone.

package memory

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// DefaultSpillDir returns the spill folder of a store made without one:
// ironflock-spill-<user ID> in the system's temporary folder
// (ironflock-spill where there are no user IDs).
func DefaultSpillDir() string {
	name := "ironflock-spill"
	if uid := os.Getuid(); uid >= 0 {
		name += "-" + strconv.Itoa(uid)
	}
	return filepath.Join(os.TempDir(), name)
}

var (
	// processToken tells this process's spill folders from those of an
	// earlier process with the same ID.
	processToken = newProcessToken()
	// spillSeq numbers the stores of this process.
	spillSeq atomic.Int64
)

func newProcessToken() string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// parseSpillName reads a store's folder name <pid>-<token>-<n>.
func parseSpillName(name string) (pid int, token string, ok bool) {
	parts := strings.Split(name, "-")
	if len(parts) != 3 || len(parts[1]) != 16 || strings.ToLower(parts[1]) != parts[1] {
		return 0, "", false
	}
	if _, err := hex.DecodeString(parts[1]); err != nil {
		return 0, "", false
	}
	pid, err1 := strconv.Atoi(parts[0])
	n, err2 := strconv.Atoi(parts[2])
	if err1 != nil || err2 != nil || pid <= 0 || n <= 0 {
		return 0, "", false
	}
	return pid, parts[1], true
}

// spillDir is a store's folder in the spill folder.
type spillDir struct {
	root string // the spill folder
	name string // the store's folder in it

	mu     sync.Mutex // guards what follows
	dir    string     // made on first use; "" before
	closed bool
}

// newSpillDir returns the store's spill folder in root ("":
// DefaultSpillDir) after removing what processes that are gone left there.
func newSpillDir(root string, log *slog.Logger) *spillDir {
	if root == "" {
		root = DefaultSpillDir()
	}
	d := &spillDir{root: root, name: fmt.Sprintf("%d-%s-%d", os.Getpid(), processToken, spillSeq.Add(1))}
	if removed, err := d.sweep(); err != nil {
		log.Warn("files: spill folder not cleared", "dir", root, "error", err)
	} else if len(removed) > 0 {
		log.Info("files: removed the spill files of stopped processes", "dir", root, "folders", removed)
	}
	return d
}

// sweep removes the folders of processes that are gone and returns their
// names. A spill folder that does not exist yet holds nothing.
func (d *spillDir) sweep() ([]string, error) {
	if err := checkRoot(d.root); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	entries, err := os.ReadDir(d.root)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, e := range entries {
		pid, token, ok := parseSpillName(e.Name())
		switch {
		case !ok || !e.IsDir():
			continue
		case pid == os.Getpid() && token == processToken: // this process's
			continue
		case pid != os.Getpid() && processRuns(pid):
			continue
		}
		if err := os.RemoveAll(filepath.Join(d.root, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		removed = append(removed, e.Name())
	}
	return removed, errors.Join(errs...)
}

// checkRoot checks that the spill folder is a folder of this user.
func checkRoot(root string) error {
	fi, err := os.Stat(root)
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("spill folder %s is not a folder", root)
	case !ownedByUser(fi):
		return fmt.Errorf("spill folder %s belongs to another user", root)
	}
	return nil
}

// path returns the store's folder, making it (and the spill folder) on
// first use.
func (d *spillDir) path() (string, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.closed:
		return "", errors.New("the object store is closed")
	case d.dir != "":
		return d.dir, nil
	}
	if err := os.MkdirAll(d.root, 0o700); err != nil {
		return "", err
	}
	if err := checkRoot(d.root); err != nil {
		return "", err
	}
	dir := filepath.Join(d.root, d.name)
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", err
	}
	d.dir = dir
	return dir, nil
}

// remove removes the store's folder; nothing is spilled afterwards.
func (d *spillDir) remove() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	if d.dir != "" {
		_ = os.RemoveAll(d.dir)
		d.dir = ""
	}
}
