package datadir

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"maps"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// crashDir is the environment variable that makes the test binary a child
// that writes to a.db and b.db of the folder it names in turn and kills
// itself (SIGKILL) right after the commit of a.db numbered crashAt.
const crashDir = "DATADIR_TEST_CRASH"

const crashAt = "DATADIR_TEST_CRASH_AT"

// putCount commits n under key "n" of bucket "b" of db.
func putCount(db *DB, n uint64) error {
	return db.Update(context.Background(), func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("b"))
		if err != nil {
			return err
		}
		return Put(b, []byte("n"), binary.BigEndian.AppendUint64(nil, n))
	})
}

// getCount reads what putN wrote to file name of d, 0 when nothing.
func getCount(t *testing.T, d *Dir, name string) uint64 {
	t.Helper()
	db, err := d.DB(name)
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	err = db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte("b"))
		if b == nil {
			return nil
		}
		v, err := Get(b, []byte("n"))
		if len(v) == 8 {
			n = binary.BigEndian.Uint64(v)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func crashChild(dir string) {
	at, _ := strconv.ParseUint(os.Getenv(crashAt), 10, 64)
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	d, err := Open(dir)
	if err != nil {
		fail(err)
	}
	a, err := d.DB("a")
	if err != nil {
		fail(err)
	}
	b, err := d.DB("b")
	if err != nil {
		fail(err)
	}
	for i := uint64(1); ; i++ {
		if err := putCount(a, i); err != nil {
			fail(err)
		}
		if i == at {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		}
		if err := putCount(b, i); err != nil {
			fail(err)
		}
	}
}

// TestCrashBetweenFiles: a kill between the commits of two files (a.db
// holds one commit more than b.db) leaves a folder that opens, each file
// at its last commit; so does a kill after a long run of commits.
func TestCrashBetweenFiles(t *testing.T) {
	for _, at := range []uint64{1, 2, 57} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "data")
			mustOpen(t, dir).Close()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), crashDir+"="+dir, crashAt+"="+strconv.FormatUint(at, 10))
			cmd.Stderr = os.Stderr
			err := cmd.Run()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("child: %v, want killed", err)
			}
			d := mustOpen(t, dir)
			if a, b := getCount(t, d, "a"), getCount(t, d, "b"); a != at || b != at-1 {
				t.Errorf("after the kill a.db holds %d and b.db %d, want %d and %d", a, b, at, at-1)
			}
		})
	}
}

// TestRecordLagsAfterPowerCut: a COMMITS older than the files (a power
// cut lost its last writes) is a lower bound: the folder opens.
func TestRecordLagsAfterPowerCut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d := mustOpen(t, dir)
	a, _ := d.DB("a")
	if err := putCount(a, 1); err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(filepath.Join(dir, CommitsFile))
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(2); i <= 5; i++ {
		if err := putCount(a, i); err != nil {
			t.Fatal(err)
		}
	}
	_ = d.Close()
	if err := os.WriteFile(filepath.Join(dir, CommitsFile), old, 0o600); err != nil {
		t.Fatal(err)
	}
	if n := getCount(t, mustOpen(t, dir), "a"); n != 5 {
		t.Errorf("a.db holds %d, want 5", n)
	}
}

// folderAB writes a folder whose a.db holds commits 1 to n and returns it
// with a copy of a.db taken after the first commit.
func folderAB(t *testing.T, n uint64) (dir string, first []byte) {
	t.Helper()
	dir = filepath.Join(t.TempDir(), "data")
	d := mustOpen(t, dir)
	a, err := d.DB("a")
	if err != nil {
		t.Fatal(err)
	}
	for i := uint64(1); i <= n; i++ {
		if err := putCount(a, i); err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			if first, err = os.ReadFile(filepath.Join(dir, "a.db")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	return dir, first
}

// TestLostFileRefused: a file deleted, emptied or put back from an older
// copy is refused, at a start and a check alike, naming it and what is
// wrong; it is not reset (the folder stays as it was).
func TestLostFileRefused(t *testing.T) {
	dir, first := folderAB(t, 3)
	path := filepath.Join(dir, "a.db")
	full, _ := os.ReadFile(path)
	for _, c := range []struct {
		name string
		do   func() error
		want string
	}{
		{"deleted", func() error { return os.Remove(path) }, "a.db: missing: its last acknowledged commit is commit"},
		{"emptied", func() error { return os.WriteFile(path, nil, 0o600) }, "a.db: empty: its last acknowledged commit is commit"},
		{"older copy", func() error { return os.WriteFile(path, first, 0o600) }, "older than its last acknowledged commit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.do(); err != nil {
				t.Fatal(err)
			}
			_, errRO := Open(dir, ReadOnly())
			_, err := Open(dir)
			wantErr(t, err, ErrDamaged, dir, c.want, "neither reset nor served")
			if errRO == nil || errRO.Error() != err.Error() {
				t.Errorf("the check says %v, the start %v", errRO, err)
			}
			if _, statErr := os.Stat(path); c.name == "deleted" && statErr == nil {
				t.Error("a.db was made anew")
			}
			if err := os.WriteFile(path, full, 0o600); err != nil {
				t.Fatal(err)
			}
			if n := getCount(t, mustOpen(t, dir), "a"); n != 3 {
				t.Errorf("restored: a.db holds %d", n)
			}
		})
	}
}

// metaOffsets returns the offsets of the two meta pages of a file.
func metaOffsets(t *testing.T, file []byte) [2]int {
	t.Helper()
	ps := int(binary.NativeEndian.Uint32(file[pageHeaderSize+8:]))
	return [2]int{0, ps}
}

// TestMetaPagesDamaged: either meta page zeroed, and a bit of every byte
// of either meta page's header and fields flipped, one at a time, is refused naming
// the file, never by a panic, never by a silent fall back to the older
// commit; the check and the start say the same.
func TestMetaPagesDamaged(t *testing.T) {
	dir, _ := folderAB(t, 4)
	path := filepath.Join(dir, "a.db")
	full, _ := os.ReadFile(path)
	trial := func(t *testing.T, what string, file []byte) {
		t.Helper()
		if err := os.WriteFile(path, file, 0o600); err != nil {
			t.Fatal(err)
		}
		ro, errRO := Open(dir, ReadOnly())
		if errRO == nil {
			_ = ro.Close()
		}
		d, err := Open(dir)
		if err == nil {
			_ = d.Close()
			t.Fatalf("%s: opened", what)
		}
		wantErr(t, err, ErrDamaged, "a.db")
		if errRO == nil || errRO.Error() != err.Error() {
			t.Errorf("%s: the check says %v, the start %v", what, errRO, err)
		}
	}
	for page, off := range metaOffsets(t, full) {
		f := bytes.Clone(full)
		clear(f[off : off+pageHeaderSize+metaSize])
		trial(t, fmt.Sprintf("meta page %d zeroed", page), f)
		for at := range pageHeaderSize + metaSize { // a bit of each byte
			bit := 8*at + at%8
			if at >= 10 && at < 16 { // the header's count and overflow: unused in a meta page
				continue
			}
			f := bytes.Clone(full)
			f[off+bit/8] ^= 1 << (bit % 8)
			trial(t, fmt.Sprintf("meta page %d bit %d", page, bit), f)
		}
	}
}

// TestPageBitFlips flips seeded random bits in the pages in use of a file
// of 3000 values, one trial each: every trial is refused naming the file
// or opens with every value as written (a bit in unused space), never a
// panic.
func TestPageBitFlips(t *testing.T) {
	dir, full := folderWithFile(t, 3000)
	path := filepath.Join(dir, "things.db")
	rng := rand.New(rand.NewPCG(33, 1))
	ps := int(binary.NativeEndian.Uint32(full[pageHeaderSize+8:]))
	refused, served := 0, 0
	for range 150 {
		f := bytes.Clone(full)
		at := 2*ps + rng.IntN(len(f)-2*ps)
		f[at] ^= 1 << rng.IntN(8)
		if err := os.WriteFile(path, f, 0o600); err != nil {
			t.Fatal(err)
		}
		d, err := Open(dir)
		if err != nil {
			wantErr(t, err, ErrDamaged, "things.db")
			refused++
			continue
		}
		n := 0
		db, _ := d.DB("things")
		err = db.View(func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("rows")).ForEach(func(k, v []byte) error {
				val, err := Value(k, v)
				if err == nil && !bytes.HasPrefix(val, fmt.Appendf(nil, "value-%08d-", n)) {
					err = fmt.Errorf("key %q holds %q", k, val[:15])
				}
				n++
				return err
			})
		})
		_ = d.Close()
		if err != nil || n != 3000 {
			t.Fatalf("byte %d flipped: opened with %d values, %v", at, n, err)
		}
		served++
	}
	t.Logf("150 bit flips: %d refused, %d served whole", refused, served)
}

// TestBucketNameStamped: a bucket made by CreateBucket whose name a bit
// flip changed (its values' checksums still match: they cover keys, not
// bucket names) is refused naming it, where it would have vanished.
func TestBucketNameStamped(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	d := mustOpen(t, dir)
	db, err := d.DB("things")
	if err != nil {
		t.Fatal(err)
	}
	err = db.Update(context.Background(), func(tx *bolt.Tx) error {
		b, err := CreateBucket(tx, []byte("realm-1"))
		if err == nil {
			b, err = CreateBucket(b, []byte("table"))
		}
		if err != nil {
			return err
		}
		return Put(b, []byte("k"), []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Close()
	path := filepath.Join(dir, "things.db")
	full, _ := os.ReadFile(path)
	for _, c := range []struct{ from, to, want string }{
		{"realm-1", "realm-3", `bucket realm-3: its name does not match the stamp`},
		{"table", "tablf", `bucket realm-1/tablf: its name does not match the stamp`},
	} {
		if bytes.Count(full, []byte(c.from)) == 0 {
			t.Fatalf("%q not in the file", c.from)
		}
		if err := os.WriteFile(path, bytes.ReplaceAll(full, []byte(c.from), []byte(c.to)), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(dir)
		wantErr(t, err, ErrDamaged, "things.db", c.want)
	}
}

// TestCommitsLostRefused: a COMMITS deleted from a folder whose files a
// flockd that keeps it wrote (stamped buckets) is refused, not written
// anew from files that may be older; a folder of unstamped files (written
// before COMMITS existed) gets one.
func TestCommitsLostRefused(t *testing.T) {
	dir, _ := folderAB(t, 2) // putCount stamps nothing: bucket "b" is made by bbolt directly
	if err := os.Remove(filepath.Join(dir, CommitsFile)); err != nil {
		t.Fatal(err)
	}
	d := mustOpen(t, dir)
	db, _ := d.DB("a")
	err := db.Update(context.Background(), func(tx *bolt.Tx) error {
		_, err := CreateBucket(tx, []byte("stamped"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = d.Close()
	if _, err := os.Stat(filepath.Join(dir, CommitsFile)); err != nil {
		t.Fatalf("no COMMITS written for a folder without one: %v", err)
	}
	if err := os.Remove(filepath.Join(dir, CommitsFile)); err != nil {
		t.Fatal(err)
	}
	_, errRO := Open(dir, ReadOnly())
	_, err = Open(dir)
	wantErr(t, err, ErrDamaged, dir, "COMMITS: missing, but a.db was written by a flockd that keeps it")
	if errRO == nil || errRO.Error() != err.Error() {
		t.Errorf("the check says %v", errRO)
	}
}

// fmtSlot is encodeSlot as it was written with fmt: the oracle of
// TestSlotText.
func fmtSlot(seq uint64, txids map[string]uint64) []byte {
	var b bytes.Buffer
	b.WriteString(commitsPrefix + strconv.FormatUint(seq, 10) + "\n")
	names := slices.Sorted(maps.Keys(txids))
	for _, name := range names {
		fmt.Fprintf(&b, "%s %d\n", name, txids[name])
	}
	fmt.Fprintf(&b, "crc32c %08x\n", crc32.Checksum(b.Bytes(), castagnoli))
	out := make([]byte, slotSize)
	copy(out, b.Bytes())
	return out
}

// TestSlotText checks the slot's bytes against the fmt version.
func TestSlotText(t *testing.T) {
	for _, c := range []struct {
		seq   uint64
		txids map[string]uint64
	}{
		{0, map[string]uint64{}},
		{1, map[string]uint64{"registry.db": 2}},
		{42, map[string]uint64{"files.db": 17, "fleet.db": 1302, "registry.db": 88}},
		{1 << 40, map[string]uint64{"a.db": 1 << 50, "b.db": 0, "c.db": 9, "d.db": 10, "e.db": 11, "f.db": 12, "g.db": 13, "h.db": 14, "i.db": 15}},
	} {
		got, err := encodeSlot(c.seq, c.txids)
		if err != nil {
			t.Fatal(err)
		}
		if want := fmtSlot(c.seq, c.txids); !bytes.Equal(got, want) {
			t.Errorf("seq %d: slot\n%q\nwant\n%q", c.seq, bytes.TrimRight(got, "\x00"), bytes.TrimRight(want, "\x00"))
		}
		if seq, txids, ok := decodeSlot(got); !ok || seq != c.seq || !maps.Equal(txids, c.txids) {
			t.Errorf("seq %d: decoded %d %v %v", c.seq, seq, txids, ok)
		}
	}
}
