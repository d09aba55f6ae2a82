package datadir

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/internal/leakcheck"
)

func isErr(err, target error) bool { return errors.Is(err, target) }

// TestInUseInProcess: a second Open of a held folder is refused with the
// holder's pid, and the folder is free again after Close.
func TestInUseInProcess(t *testing.T) {
	leakcheck.Check(t)
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	wantErr(t, err, ErrInUse, fmt.Sprintf("%s is in use by flockd pid %d", dir, os.Getpid()))
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d2, err := Open(dir)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	if err := d2.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestInUseByAnotherProcess: a folder a child process holds is refused
// naming the child's pid; once the child is killed with SIGKILL the
// kernel lets the lock go and the folder opens, though the lock file
// still names the dead child.
func TestInUseByAnotherProcess(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	child := startHolder(t, dir)
	_, err := Open(dir)
	wantErr(t, err, ErrInUse, fmt.Sprintf("%s is in use by flockd pid %d", dir, child.Process.Pid))
	_, err = Open(dir, ReadOnly())
	wantErr(t, err, ErrInUse, "in use by flockd pid")

	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = child.Wait()
	d := mustOpen(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, LockFile))
	if err != nil || strings.TrimSpace(string(b)) != fmt.Sprint(os.Getpid()) {
		t.Errorf("lock file holds %q (%v), want this pid %d", b, err, os.Getpid())
	}
	_ = d
}

// TestLockFileRemovedUnderHolder: when flockd.lock is removed while
// another process holds the folder, a second Open is refused (by the .db
// files' own lock) saying the holder cannot be told, never naming its own
// pid, and does not leave its pid in the lock file.
func TestLockFileRemovedUnderHolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d := mustOpen(t, dir)
	db, err := d.DB("registry")
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Update(t.Context(), func(tx *bolt.Tx) error { _, err := tx.CreateBucketIfNotExists([]byte("b")); return err }); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	child := startHolder(t, dir)
	if err := os.Remove(filepath.Join(dir, LockFile)); err != nil {
		t.Fatal(err)
	}
	// The lock file is new: Open takes it; the .db file's lock refuses.
	d2, err := Open(dir)
	if err == nil {
		_, err = d2.DB("registry")
		_ = d2.Close()
	}
	wantErr(t, err, ErrInUse, "whose pid cannot be told: flockd.lock was removed or replaced while it ran")
	if strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Errorf("the refusal names the refused process's own pid %d: %v", os.Getpid(), err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, LockFile)); err == nil && strings.TrimSpace(string(b)) != "" {
		t.Errorf("the refused Open left %q in the lock file", b)
	}
	_ = child
}
