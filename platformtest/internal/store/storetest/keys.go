// This file holds the conformance suite of the keys seam (store.Keys):
// a key by name, made once, the same on every later call and, for a kept
// store, after a reopen.

package storetest

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// KeysBackend is what a backend gives the keys suite: a place of its own
// made for each case.
type KeysBackend interface {
	// Open opens the keys; for a kept backend every Open opens the same
	// kept keys. close lets go of them.
	Open(t testing.TB) (keys store.Keys, close func() error, err error)
	// Kept reports whether keys outlive close.
	Kept() bool
	// Exclusive reports whether a second Open while one is open is
	// refused.
	Exclusive() bool
}

// RunKeys runs the keys suite on the backend newBackend makes, a new one
// for each case.
func RunKeys(t *testing.T, newBackend func(t *testing.T) KeysBackend) {
	cases := []struct {
		name string
		run  func(t *testing.T, be KeysBackend)
	}{
		{"Made", testKeysMade},
		{"Concurrent", testKeysConcurrent},
		{"Reopen", testKeysReopen},
		{"SecondOpen", testKeysSecondOpen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, newBackend(t)) })
	}
}

// openKeys opens be's keys, closed when the test ends.
func openKeys(t *testing.T, be KeysBackend) store.Keys {
	t.Helper()
	k, closeKeys, err := be.Open(t)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = closeKeys() })
	return k
}

// key returns the key named name, failing the test on an error or a key
// of another size.
func key(t *testing.T, k store.Keys, name string) []byte {
	t.Helper()
	v, err := k.Key(context.Background(), name)
	if err != nil || len(v) != store.KeySize {
		t.Fatalf("key %s: %d bytes, %v", name, len(v), err)
	}
	return v
}

// testKeysMade: a key is made the first time, random (not zero, each
// name its own), and the same on every later call.
func testKeysMade(t *testing.T, be KeysBackend) {
	k := openKeys(t, be)
	secret, presign := key(t, k, store.SecretColumnsKey), key(t, k, store.PresignKey)
	if bytes.Equal(secret, make([]byte, store.KeySize)) || bytes.Equal(secret, presign) {
		t.Errorf("keys %x and %x", secret, presign)
	}
	if again := key(t, k, store.SecretColumnsKey); !bytes.Equal(again, secret) {
		t.Errorf("the key of secret columns changed: %x, then %x", secret, again)
	}
	if other := key(t, k, "other"); bytes.Equal(other, secret) || bytes.Equal(other, presign) {
		t.Errorf("a third key equals one of the others: %x", other)
	}
	secret[0] ^= 0xff // the caller's copy
	if again := key(t, k, store.SecretColumnsKey); bytes.Equal(again, secret) {
		t.Error("changing a returned key changed the kept one")
	}
}

// testKeysConcurrent: callers asking at once for a key not made yet all
// get the same one.
func testKeysConcurrent(t *testing.T, be KeysBackend) {
	k := openKeys(t, be)
	got := make([][]byte, 8)
	var wg sync.WaitGroup
	for i := range got {
		wg.Go(func() {
			v, err := k.Key(context.Background(), store.PresignKey)
			if err != nil {
				t.Error(err)
			}
			got[i] = v
		})
	}
	wg.Wait()
	for _, v := range got[1:] {
		if !bytes.Equal(v, got[0]) {
			t.Fatalf("concurrent first calls got different keys: %x", got)
		}
	}
}

// testKeysReopen: a kept store opened again has the same keys; a store
// that keeps nothing makes new ones.
func testKeysReopen(t *testing.T, be KeysBackend) {
	k, closeKeys, err := be.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	secret, presign := key(t, k, store.SecretColumnsKey), key(t, k, store.PresignKey)
	if err := closeKeys(); err != nil {
		t.Fatal(err)
	}
	k = openKeys(t, be)
	s2, p2 := key(t, k, store.SecretColumnsKey), key(t, k, store.PresignKey)
	if be.Kept() != bytes.Equal(s2, secret) || be.Kept() != bytes.Equal(p2, presign) {
		t.Errorf("kept %v: after a reopen the keys are %x, %x; were %x, %x", be.Kept(), s2, p2, secret, presign)
	}
}

// testKeysSecondOpen: an exclusive store refuses a second open while the
// first holds it, and the first goes on.
func testKeysSecondOpen(t *testing.T, be KeysBackend) {
	k := openKeys(t, be)
	before := key(t, k, store.SecretColumnsKey)
	k2, close2, err := be.Open(t)
	switch {
	case be.Exclusive() && err == nil:
		_ = close2()
		t.Fatal("a second open of keys in use was not refused")
	case !be.Exclusive() && err != nil:
		t.Fatalf("a second open: %v", err)
	case !be.Exclusive():
		defer close2()
		if got := key(t, k2, store.SecretColumnsKey); be.Kept() && !bytes.Equal(got, before) {
			t.Errorf("a second open of shared keys: %x, the first has %x", got, before)
		}
	}
	if got := key(t, k, store.SecretColumnsKey); !bytes.Equal(got, before) {
		t.Errorf("the first after a second open: %x, was %x", got, before)
	}
}
