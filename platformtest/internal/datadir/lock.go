// This file holds the lock of the folder: flockd.lock holds the pid of the
// process that has the folder, and an exclusive lock on it (lock_unix.go,
// lock_other.go) keeps a second process, or a second Open in the same
// process, out. The kernel lets the lock go when the process ends, even
// by SIGKILL; the file stays and is taken over by the next Open.
//
// A lock file removed while its holder runs cannot name that holder any
// more: the next process takes a new file's lock and is refused later, by
// bbolt's own lock on a .db file. Then the refusal says that the holder
// cannot be told (never the refused process's own pid), and a process
// that gives the folder up (refused or closed) clears its pid from the
// file, so that the file never names a process that does not hold it.

package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// LockFile is the name of the lock file in a data folder.
const LockFile = "flockd.lock"

// lockDir takes dir for this process and writes its pid in the lock file.
func lockDir(dir string) (*os.File, error) {
	path := filepath.Join(dir, LockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("data folder %s: %w", dir, err)
	}
	if err := lockFile(f); err != nil {
		_ = f.Close()
		if errors.Is(err, errLocked) {
			return nil, heldBy(dir)
		}
		return nil, fmt.Errorf("data folder %s: lock %s: %w", dir, LockFile, err)
	}
	err = f.Truncate(0)
	if err == nil {
		_, err = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	if err != nil {
		_ = unlockFile(f)
		_ = f.Close()
		return nil, fmt.Errorf("data folder %s: write %s: %w", dir, LockFile, err)
	}
	locks.Lock()
	locks.held[f] = dir
	locks.Unlock()
	return f, nil
}

// locks are the lock files this process holds, by their folder.
var locks = struct {
	sync.Mutex
	held map[*os.File]string
}{held: map[*os.File]string{}}

// holding reports whether this process holds dir's lock file.
func holding(dir string) bool {
	locks.Lock()
	defer locks.Unlock()
	for _, d := range locks.held {
		if d == dir {
			return true
		}
	}
	return false
}

// heldBy is the refusal of a folder whose lock file another holder has
// locked, naming the pid the file holds.
func heldBy(dir string) error {
	if pid := lockPid(dir); pid > 0 {
		return fmt.Errorf("%w: %s is in use by flockd pid %d", ErrInUse, dir, pid)
	}
	return fmt.Errorf("%w: %s is in use by another flockd", ErrInUse, dir)
}

// inUse is the refusal of a folder whose .db files another process holds
// (bbolt's lock), naming that process's pid when the lock file tells it.
// When this process holds the lock file itself, the file was removed or
// replaced under a running holder, whose pid cannot be told.
func inUse(dir string) error {
	if pid := lockPid(dir); pid == os.Getpid() && holding(dir) {
		return fmt.Errorf("%w: %s is in use by another process, whose pid cannot be told: %s was removed or replaced "+
			"while it ran (look for a flockd serving this folder)", ErrInUse, dir, LockFile)
	}
	return heldBy(dir)
}

// lockPid returns the pid the lock file of dir holds, 0 when it holds
// none.
func lockPid(dir string) int {
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		return pid
	}
	return 0
}

// unlockDir lets the folder go, clearing this process's pid from the
// lock file (it holds the lock, so no other pid is there); the file
// stays for the next holder.
func unlockDir(f *os.File) error {
	locks.Lock()
	delete(locks.held, f)
	locks.Unlock()
	return errors.Join(f.Truncate(0), unlockFile(f), f.Close())
}

// errLocked is what lockFile returns when another holder has the lock.
var errLocked = errors.New("locked")
