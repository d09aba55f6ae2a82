//go:build linux

package datadir

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// mappedKiB returns the resident kibibytes of the mapping of db's file,
// from /proc/self/smaps.
func mappedKiB(t *testing.T, db *DB) int {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	start := strconv.FormatUint(uint64(db.Bolt().Info().Data), 16)
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if !strings.HasSuffix(fields[0], ":") { // start-end perms offset dev inode path
			lo, _, _ := strings.Cut(fields[0], "-")
			in = strings.TrimLeft(lo, "0") == start
			continue
		}
		if in && fields[0] == "Rss:" {
			kib, err := strconv.Atoi(fields[1])
			if err != nil {
				t.Fatal(err)
			}
			return kib
		}
	}
	t.Fatalf("no mapping at %s in /proc/self/smaps", start)
	return 0
}

// TestTrim: the pages of a file that reads walked leave the process's
// resident set at Trim, and at open (where bbolt reads every page to
// rebuild the free list it does not write).
func TestTrim(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	db, err := d.DB("pages")
	if err != nil {
		t.Fatal(err)
	}
	value := []byte(strings.Repeat("x", 1000))
	err = db.Update(context.Background(), func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		for i := 0; err == nil && i < 4000; i++ {
			err = Put(b, fmt.Appendf(nil, "%08d", i), value)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	read := func() {
		t.Helper()
		err := db.View(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("b")).ForEach(func(k, v []byte) error {
				_, err := Value(k, v)
				return err
			})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	read()
	if kib := mappedKiB(t, db); kib < 2000 {
		t.Fatalf("a read of 4 MB left %d KiB resident: the test reads nothing", kib)
	}
	db.Trim()
	if kib := mappedKiB(t, db); kib > 64 {
		t.Errorf("after Trim: %d KiB resident", kib)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}

	d, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if db, err = d.DB("pages"); err != nil {
		t.Fatal(err)
	}
	if kib := mappedKiB(t, db); kib > 64 {
		t.Errorf("after open: %d KiB resident", kib)
	}
	read()
	if kib := mappedKiB(t, db); kib < 2000 {
		t.Errorf("the reopened file lost values: %d KiB read", kib)
	}
}
