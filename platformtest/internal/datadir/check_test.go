package datadir

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// folderWithFile writes a folder holding things.db with n values and
// returns its path and the file's bytes.
func folderWithFile(t *testing.T, n int) (string, []byte) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, d, "things", "rows", n, 100)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "things.db"))
	if err != nil {
		t.Fatal(err)
	}
	return dir, b
}

// TestCheckPasses reports what it checked.
func TestCheckPasses(t *testing.T) {
	dir, _ := folderWithFile(t, 3000)
	d := mustOpen(t, dir, ReadOnly())
	files := d.Files()
	if len(files) != 1 || files[0].Name != "things.db" || files[0].Values != 3000 || files[0].Buckets != 1 || files[0].Bytes == 0 {
		t.Errorf("files = %+v", files)
	}
}

// TestTruncatedFileRefused: a file cut short, anywhere past its first
// pages or within them, is refused naming it, and is left as it was.
func TestTruncatedFileRefused(t *testing.T) {
	dir, full := folderWithFile(t, 3000)
	path := filepath.Join(dir, "things.db")
	for _, size := range []int{len(full) / 2, 3 * 4096, 5000, 100} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			if err := os.WriteFile(path, full[:size], 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := Open(dir)
			wantErr(t, err, ErrDamaged, dir, "things.db", "neither reset nor served")
			if size >= 3*4096 {
				wantErr(t, err, ErrDamaged, fmt.Sprintf("truncated: the file holds %d bytes", size))
			}
			if b, _ := os.ReadFile(path); len(b) != size {
				t.Errorf("the file now holds %d bytes, want it left at %d", len(b), size)
			}
		})
	}
}

// TestDamagedPageRefused: damaging the header of any page in use (branch,
// leaf, free list) is refused naming the file, at Open, never by a crash.
func TestDamagedPageRefused(t *testing.T) {
	dir, full := folderWithFile(t, 3000)
	path := filepath.Join(dir, "things.db")
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, PreLoadFreelist: true})
	if err != nil {
		t.Fatal(err)
	}
	pageSize := db.Info().PageSize
	var used []int
	_ = db.View(func(tx *bolt.Tx) error {
		for id := 2; int64(id)*int64(pageSize) < tx.Size(); id++ {
			if p, err := tx.Page(id); err == nil && p != nil && (p.Type == "branch" || p.Type == "leaf" || p.Type == "freelist") {
				used = append(used, id)
			}
		}
		return nil
	})
	_ = db.Close()
	if len(used) < 10 {
		t.Fatalf("only %d pages in use", len(used))
	}
	for _, id := range used {
		damagedFile := bytes.Clone(full)
		for i := id * pageSize; i < id*pageSize+16; i++ {
			damagedFile[i] ^= 0x5a
		}
		if err := os.WriteFile(path, damagedFile, 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		if err == nil {
			t.Errorf("page %d damaged: opened", id)
			continue
		}
		wantErr(t, err, ErrDamaged, "things.db")
	}
}

// TestDamagedValueRefused: a flipped bit in a value, which bbolt does not
// see, is refused naming the bucket and the key.
func TestDamagedValueRefused(t *testing.T) {
	dir, full := folderWithFile(t, 3000)
	// Every copy: bbolt's free pages may hold older ones.
	if bytes.Count(full, []byte("value-00001234-")) == 0 {
		t.Fatal("value not found in the file")
	}
	full = bytes.ReplaceAll(full, []byte("value-00001234-"), []byte("value-00001235-"))
	if err := os.WriteFile(filepath.Join(dir, "things.db"), full, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	wantErr(t, err, ErrDamaged, "things.db", `bucket rows: key "k00001234": checksum mismatch`)
}

// TestForeignAndEmptyFiles: a .db file that is not bbolt is refused; an
// empty one (created, never written) holds nothing and is taken.
func TestForeignAndEmptyFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	mustOpen(t, dir).Close()
	if err := os.WriteFile(filepath.Join(dir, "junk.db"), bytes.Repeat([]byte("not a database "), 2000), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(dir)
	wantErr(t, err, ErrDamaged, "junk.db")

	if err := os.WriteFile(filepath.Join(dir, "junk.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	d := mustOpen(t, dir)
	fill(t, d, "junk", "b", 10, 10)
}

// BenchmarkCheckFile measures the check at Open of a file of 1,000,000
// values of 120 bytes (about 150 MiB): the read-only opens, the walk with
// the checksums, and bbolt's Tx.Check (checkBolt alone, for comparison),
// and inspect alone (pages.go: the file's own walk before bbolt's).
func BenchmarkCheckFile(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "data")
	d, err := Open(dir)
	if err != nil {
		b.Fatal(err)
	}
	db, err := d.DB("rows")
	if err != nil {
		b.Fatal(err)
	}
	const n = 1_000_000
	val := make([]byte, 120)
	for i := 0; i < n; i += 50_000 {
		err := db.Bolt().Update(func(tx *bolt.Tx) error {
			bk, err := tx.CreateBucketIfNotExists([]byte("rows"))
			if err != nil {
				return err
			}
			bk.FillPercent = 0.9
			for j := i; j < i+50_000; j++ {
				if err := Put(bk, binary.BigEndian.AppendUint64(nil, uint64(j)), val); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		b.Fatal(err)
	}
	b.Run("check", func(b *testing.B) {
		for b.Loop() {
			rep, err := checkFile(dir, "rows.db")
			if err != nil || rep.Values != n {
				b.Fatal(rep, err)
			}
			b.ReportMetric(float64(rep.Bytes)/(1<<20), "MiB")
		}
	})
	b.Run("inspect-only", func(b *testing.B) { // pages.go: the meta pages and the walk of every page
		path := filepath.Join(dir, "rows.db")
		fi, err := os.Stat(path)
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, err := inspectFile(path, fi.Size()); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bolt-check-only", func(b *testing.B) {
		for b.Loop() {
			bdb, err := bolt.Open(filepath.Join(dir, "rows.db"), 0o600, &bolt.Options{ReadOnly: true})
			if err != nil {
				b.Fatal(err)
			}
			_ = bdb.View(func(tx *bolt.Tx) error {
				for err := range tx.Check() {
					b.Error(err)
				}
				return nil
			})
			_ = bdb.Close()
		}
	})
}
