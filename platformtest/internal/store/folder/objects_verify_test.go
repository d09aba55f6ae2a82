package folder

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// checkedBlob writes data to a file and returns a data folder's blob of
// it, recorded with the SHA-256 of recorded.
func checkedBlob(t testing.TB, data, recorded []byte) *blob {
	path := filepath.Join(t.TempDir(), "0123456789abcdef0123456789abcdef")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	sum := sha256.Sum256(recorded)
	return &blob{size: int64(len(data)), sha256: hex.EncodeToString(sum[:]), file: f, name: filepath.Base(path),
		check: &contentCheck{checked: &checkedBlobs{}, where: "files/01/0123…", object: "object \"k\""}}
}

// TestCheckedReader: a whole read of a damaged blob fails before its last
// bytes are handed out; a seek makes the reader check the blob whole
// first; a blob found whole is read without hashing again.
func TestCheckedReader(t *testing.T) {
	data := make([]byte, 100_000)
	for i := range data {
		data[i] = byte(i * 7)
	}
	bad := append([]byte(nil), data...)
	bad[99_999] ^= 1
	b := checkedBlob(t, bad, data)
	r := newCheckedReader(b)
	got, err := io.ReadAll(r)
	if !errors.Is(err, datadir.ErrDamaged) || len(got) >= len(data) {
		t.Errorf("whole read: %d bytes, %v", len(got), err)
	}
	r = newCheckedReader(b)
	if _, err := r.Seek(500, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || !errors.Is(err, datadir.ErrDamaged) {
		t.Errorf("read after a seek: %d, %v", n, err)
	}
	if n, err := b.ReadAt(make([]byte, 10), 5); n != 0 || !errors.Is(err, datadir.ErrDamaged) {
		t.Errorf("ReadAt of a part: %d, %v", n, err)
	}

	good := checkedBlob(t, data, data)
	r = newCheckedReader(good)
	if _, err := r.Seek(99_990, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	tail, err := io.ReadAll(r)
	if err != nil || string(tail) != string(data[99_990:]) || !good.check.checked.has(good.name) {
		t.Errorf("read after a seek of a whole blob: %d bytes, %v", len(tail), err)
	}
	all, err := io.ReadAll(newCheckedReader(good))
	if err != nil || string(all) != string(data) {
		t.Errorf("whole read of a whole blob: %d bytes, %v", len(all), err)
	}
}

// BenchmarkContentCheck measures the check of a 64 MiB blob read whole
// (from the page cache) against its SHA-256: what a first ranged read and
// flockd check cost per byte.
func BenchmarkContentCheck(b *testing.B) {
	data := make([]byte, 64<<20)
	for i := range data {
		data[i] = byte(i)
	}
	bl := checkedBlob(b, data, data)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		bl.check.checked = &checkedBlobs{}
		if err := bl.checkWhole(); err != nil {
			b.Fatal(err)
		}
	}
}
