package folder_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// keysBackend opens the keys of one data folder of the test's own, with
// the folder.
type keysBackend struct{ dir string }

func (b keysBackend) Open(testing.TB) (store.Keys, func() error, error) {
	d, err := datadir.Open(b.dir)
	if err != nil {
		return nil, nil, err
	}
	return folder.NewKeys(d), d.Close, nil
}

func (keysBackend) Kept() bool      { return true }
func (keysBackend) Exclusive() bool { return true }

// TestKeys runs the keys suite on a data folder.
func TestKeys(t *testing.T) {
	storetest.RunKeys(t, func(t *testing.T) storetest.KeysBackend {
		return keysBackend{dir: filepath.Join(t.TempDir(), "data")}
	})
}

// TestKeysEarlierLayout: a folder whose keys an earlier version kept (the
// data service's in fleet.db, the file service's in files.db, both in
// their bucket keys through datadir's Keep) opens with the same keys.
func TestKeysEarlierLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	ctx := context.Background()
	d, err := datadir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	old := map[string][]byte{}
	for file, name := range map[string]string{"fleet": "secret-columns", "files": "presign"} {
		db, err := d.DB(file)
		if err != nil {
			t.Fatal(err)
		}
		v := bytes.Repeat([]byte{byte(len(name))}, 32)
		if old[name], err = db.Keep(ctx, "keys", name, func() ([]byte, error) { return v, nil }); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	d, err = datadir.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	k := folder.NewKeys(d)
	for name, want := range map[string][]byte{store.SecretColumnsKey: old["secret-columns"], store.PresignKey: old["presign"]} {
		if got, err := k.Key(ctx, name); err != nil || !bytes.Equal(got, want) {
			t.Errorf("key %s: %x, %v; the folder holds %x", name, got, err, want)
		}
	}
}

// TestKeysDamaged: a kept key of another size is a damaged folder,
// refused naming the file.
func TestKeysDamaged(t *testing.T) {
	d, err := datadir.Open(filepath.Join(t.TempDir(), "data"))
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	db, err := d.DB("files")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Keep(context.Background(), "keys", store.PresignKey, func() ([]byte, error) { return []byte("short"), nil }); err != nil {
		t.Fatal(err)
	}
	if _, err := folder.NewKeys(d).Key(context.Background(), store.PresignKey); !errors.Is(err, datadir.ErrDamaged) || !bytes.Contains([]byte(err.Error()), []byte("files.db")) {
		t.Errorf("a short key: %v", err)
	}
}
