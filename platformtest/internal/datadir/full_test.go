package datadir

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestFull: while the disk is full, a commit fails for every write of its
// transaction with ErrFull (and ENOSPC), keeping nothing, and so does a
// blob; reads go on; once there is room again writes succeed.
func TestFull(t *testing.T) {
	d := mustOpen(t, filepath.Join(t.TempDir(), "data"))
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	blobs, err := d.Blobs("files")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := db.Update(ctx, putN(1)); err != nil {
		t.Fatal(err)
	}
	d.SimulateFull(true)
	err = db.Update(ctx, putN(2))
	if !errors.Is(err, ErrFull) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("commit on a full disk: %v", err)
	}
	w, err := blobs.Create()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte("x")); !errors.Is(err, ErrFull) {
		t.Errorf("blob write on a full disk: %v", err)
	}
	if _, err := w.Commit(); !errors.Is(err, ErrFull) {
		t.Errorf("blob commit on a full disk: %v", err)
	}
	var keys int
	err = db.View(func(tx *bolt.Tx) error {
		keys = tx.Bucket([]byte("b")).Stats().KeyN
		return nil
	})
	if err != nil || keys != 1 {
		t.Errorf("read on a full disk: %d keys, %v", keys, err)
	}
	d.SimulateFull(false)
	if err := db.Update(ctx, putN(2)); err != nil {
		t.Errorf("commit once there is room: %v", err)
	}
	if n, err := blobs.RemoveTemps(); err != nil || n != 0 {
		t.Errorf("temporary files left by the failed blob: %d, %v", n, err)
	}
}

// TestKeep: a kept value is generated once and found again after the
// folder is reopened.
func TestKeep(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	calls := 0
	gen := func() ([]byte, error) { calls++; return []byte{byte(calls)}, nil }
	keep := func() []byte {
		d, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer d.Close()
		db, err := d.DB("things")
		if err != nil {
			t.Fatal(err)
		}
		v, err := db.Keep(context.Background(), "meta", "key", gen)
		if err != nil {
			t.Fatal(err)
		}
		again, err := db.Keep(context.Background(), "meta", "key", gen)
		if err != nil || !bytes.Equal(v, again) {
			t.Fatalf("second Keep: %v, %v", again, err)
		}
		return v
	}
	first, second := keep(), keep()
	if !bytes.Equal(first, second) || calls != 1 {
		t.Errorf("kept %v then %v, generated %d times", first, second, calls)
	}
}

// TestBlobs: a blob is readable under the name Commit gives it; a link is
// a second name for the same bytes that outlives the first; Walk lists
// blobs by name; temporary files are removed by RemoveTemps.
func TestBlobs(t *testing.T) {
	d := mustOpen(t, filepath.Join(t.TempDir(), "data"))
	b, err := d.Blobs("files")
	if err != nil {
		t.Fatal(err)
	}
	write := func(data string) string {
		t.Helper()
		w, err := b.Create()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.ReadFrom(bytes.NewReader([]byte(data))); err != nil {
			t.Fatal(err)
		}
		name, err := w.Commit()
		if err != nil {
			t.Fatal(err)
		}
		return name
	}
	read := func(name string) string {
		t.Helper()
		f, err := b.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	one := write("hello")
	two, err := b.Link(one)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Remove(one); err != nil {
		t.Fatal(err)
	}
	if got := read(two); got != "hello" || two == one {
		t.Errorf("link %s of %s reads %q", two, one, got)
	}
	three := write("world!")
	got := map[string]int64{}
	var order []string
	if err := b.Walk(func(name string, size int64) error {
		got[name] = size
		order = append(order, name)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[two] != 5 || got[three] != 6 || order[0] > order[1] {
		t.Errorf("walk: %v in order %v", got, order)
	}
	if err := os.WriteFile(filepath.Join(b.Path(), ".tmp-cut-short"), []byte("half"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, err := b.Create()
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if n, err := b.RemoveTemps(); err != nil || n != 1 {
		t.Errorf("RemoveTemps: %d, %v", n, err)
	}
	if _, err := b.Open("../../FORMAT"); err == nil {
		t.Error("a name that is not a blob's opened")
	}
}
