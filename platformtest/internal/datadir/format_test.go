package datadir

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestNewFolder: a new folder gets FORMAT with the current version; a
// folder holding other files is not taken; a read-only Open of an empty
// folder is refused.
func TestNewFolder(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "data")
	d := mustOpen(t, dir)
	if d.Format() != CurrentFormat() {
		t.Errorf("format %d, want %d", d.Format(), CurrentFormat())
	}
	b, err := os.ReadFile(filepath.Join(dir, FormatFile))
	if err != nil || string(b) != fmt.Sprintf("flockd data folder format %d\n", CurrentFormat()) {
		t.Errorf("FORMAT = %q, %v", b, err)
	}

	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "notes.txt"), []byte("mine"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = Open(other)
	wantErr(t, err, ErrNotDataDir, other, "notes.txt", "no FORMAT file")

	_, err = Open(t.TempDir(), ReadOnly())
	wantErr(t, err, ErrNotDataDir, "is empty")
	_, err = Open(filepath.Join(t.TempDir(), "absent"), ReadOnly())
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only open of a missing folder: %v", err)
	}
}

// TestNewerFormatRefused names both versions and leaves the folder as it
// was.
func TestNewerFormatRefused(t *testing.T) {
	dir := t.TempDir()
	newer := CurrentFormat() + 2
	if err := writeFormat(dir, newer); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	wantErr(t, err, ErrNewerFormat, dir,
		fmt.Sprintf("written by data folder format %d", newer),
		fmt.Sprintf("this flockd reads format %d and older", CurrentFormat()))
	if v, _, _ := readFormat(dir); v != newer {
		t.Errorf("FORMAT now %d, want it left at %d", v, newer)
	}
}

// TestDamagedFormatFile is refused naming the file.
func TestDamagedFormatFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FormatFile), []byte("flockd data folder format x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	wantErr(t, err, ErrDamaged, "FORMAT", "neither reset nor served")
}

// synthetic is a format 3 whose steps rename bucket "old" of things.db to
// "new" (1 → 2) and add a key "upgraded" to it (2 → 3); fail makes the
// second step fail.
func synthetic(fail *bool) format {
	return format{version: 3, steps: []Step{
		{From: 1, What: "rename bucket old to new", Run: func(dir string) error {
			return withBolt(filepath.Join(dir, "things.db"), func(tx *bolt.Tx) error {
				old := tx.Bucket([]byte("old"))
				if old == nil {
					return nil // done by a run cut short
				}
				nb, err := tx.CreateBucketIfNotExists([]byte("new"))
				if err != nil {
					return err
				}
				if err := old.ForEach(func(k, v []byte) error { return nb.Put(k, v) }); err != nil {
					return err
				}
				return tx.DeleteBucket([]byte("old"))
			})
		}},
		{From: 2, What: "mark the bucket", Run: func(dir string) error {
			if *fail {
				return errors.New("disk on fire")
			}
			return withBolt(filepath.Join(dir, "things.db"), func(tx *bolt.Tx) error {
				return Put(tx.Bucket([]byte("new")), []byte("upgraded"), []byte("yes"))
			})
		}},
	}}
}

func withBolt(path string, fn func(*bolt.Tx) error) error {
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		return err
	}
	return errors.Join(db.Update(fn), db.Close())
}

// oldFolder writes a folder of format 1 holding things.db with 50 values
// in bucket "old".
func oldFolder(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Open(dir, withFormat(format{version: 1}))
	if err != nil {
		t.Fatal(err)
	}
	fill(t, d, "things", "old", 50, 32)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestOlderFormatUpgradedAfterCopy: the folder is copied beside itself
// first (the copy keeps format 1 and the data as it was), then upgraded in
// place step by step.
func TestOlderFormatUpgradedAfterCopy(t *testing.T) {
	dir := oldFolder(t)
	fail := false
	d := mustOpen(t, dir, withFormat(synthetic(&fail)))
	if d.Format() != 3 {
		t.Errorf("format after the upgrade %d, want 3", d.Format())
	}
	if v, _, _ := readFormat(dir); v != 3 {
		t.Errorf("FORMAT %d, want 3", v)
	}
	copyPath := dir + ".format1-copy"
	if d.CopyPath() != copyPath {
		t.Errorf("copy at %q, want %q", d.CopyPath(), copyPath)
	}
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("new"))
		if b == nil || tx.Bucket([]byte("old")) != nil {
			return errors.New("bucket not renamed")
		}
		if v, err := Get(b, []byte("upgraded")); err != nil || string(v) != "yes" {
			return fmt.Errorf("mark %q, %v", v, err)
		}
		if v, err := Get(b, []byte("k00000049")); err != nil || v == nil {
			return fmt.Errorf("value 49: %q, %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Error(err)
	}

	// The copy is the folder before the upgrade, and a data folder itself.
	if v, _, _ := readFormat(copyPath); v != 1 {
		t.Errorf("copy's FORMAT %d, want 1", v)
	}
	if _, err := os.Stat(filepath.Join(copyPath, LockFile)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the copy holds the lock file: %v", err)
	}
	c := mustOpen(t, copyPath, withFormat(format{version: 1}))
	cdb, err := c.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	_ = cdb.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("old")) == nil || tx.Bucket([]byte("new")) != nil {
			t.Error("the copy was changed")
		}
		return nil
	})
}

// TestUpgradeCutShort: a failing step names the versions and the copy,
// FORMAT records the last version reached, and the next Open resumes from
// there (a second copy, of the half-upgraded folder, is made first).
func TestUpgradeCutShort(t *testing.T) {
	dir := oldFolder(t)
	fail := true
	_, err := Open(dir, withFormat(synthetic(&fail)))
	wantErr(t, err, nil, "upgrade from format 2 to 3 (mark the bucket)", "disk on fire", dir+".format1-copy")
	if v, _, _ := readFormat(dir); v != 2 {
		t.Fatalf("FORMAT %d after the failed step, want 2", v)
	}
	fail = false
	d := mustOpen(t, dir, withFormat(synthetic(&fail)))
	if d.Format() != 3 || d.CopyPath() != dir+".format2-copy" {
		t.Errorf("format %d, copy %q", d.Format(), d.CopyPath())
	}
}

// TestReadOnlyDoesNotUpgrade: a check of an older folder reads it as it
// is, and writes are refused.
func TestReadOnlyDoesNotUpgrade(t *testing.T) {
	dir := oldFolder(t)
	fail := false
	d := mustOpen(t, dir, withFormat(synthetic(&fail)), ReadOnly())
	if d.Format() != 1 || d.CopyPath() != "" {
		t.Errorf("format %d, copy %q: a read-only open upgraded", d.Format(), d.CopyPath())
	}
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(context.Background(), func(*bolt.Tx) error { return nil })
	wantErr(t, err, ErrReadOnly)
	if _, err := d.DB("absent"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("read-only DB of a missing file: %v", err)
	}
}

// TestFormat1Upgraded: a folder of format 1 (the registry only, as the
// first flockd with a data folder wrote it) is copied and upgraded to the
// current format, which keeps rows and objects, with its files as they
// were.
func TestFormat1Upgraded(t *testing.T) {
	dir := oldFolder(t)
	d := mustOpen(t, dir)
	if d.Format() != 2 || CurrentFormat() != 2 || d.CopyPath() != dir+".format1-copy" {
		t.Fatalf("format %d (current %d), copy %q", d.Format(), CurrentFormat(), d.CopyPath())
	}
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = db.View(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("old")).ForEach(func(k, v []byte) error {
			_, err := Value(k, v)
			n++
			return err
		})
	})
	if err != nil || n != 50 {
		t.Errorf("after the upgrade: %d values, %v", n, err)
	}
}
