// This file holds the lock of the folder: flockd.lock holds the pid of the
// process that has the folder, and an exclusive lock on it (lock_unix.go,
// lock_other.go) keeps a second process, or a second Open in the same
// process, out. The kernel lets the lock go when the process ends, even
// by SIGKILL; the file stays and is taken over by the next Open.

package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
			return nil, inUse(dir)
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
	return f, nil
}

// inUse is the refusal of a folder another process holds, naming its pid
// when the lock file tells it.
func inUse(dir string) error {
	b, _ := os.ReadFile(filepath.Join(dir, LockFile))
	if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
		return fmt.Errorf("%w: %s is in use by flockd pid %d", ErrInUse, dir, pid)
	}
	return fmt.Errorf("%w: %s is in use by another flockd", ErrInUse, dir)
}

// unlockDir lets the folder go; the file stays for the next holder.
func unlockDir(f *os.File) error {
	return errors.Join(unlockFile(f), f.Close())
}

// errLocked is what lockFile returns when another holder has the lock.
var errLocked = errors.New("locked")
