// This file holds the cases of the objects suite (objects.go) over a
// store's life: a full disk, the store closed and opened again, a second
// open while the first holds it.

package storetest

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// testObjectsFull: on a full disk every write (put, copy, a large
// upload) fails with store.ErrFull and keeps nothing; reads go on; once
// there is room writes succeed again.
func testObjectsFull(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	ctx := context.Background()
	mustPut(t, b, "default", "before", []byte("before"), 0)
	be.SetFull(true)
	if _, err := put(b, "default", "full", []byte("refused"), 0, 0); !errors.Is(err, store.ErrFull) {
		t.Errorf("put on a full disk: %v", err)
	}
	if _, err := put(b, "default", "big", make([]byte, 2<<20), 0, 0); !errors.Is(err, store.ErrFull) {
		t.Errorf("large put on a full disk: %v", err)
	}
	if _, err := b.Copy(ctx, "default", "before", store.Meta{Namespace: "default", Key: "copy"}, 0); !errors.Is(err, store.ErrFull) {
		t.Errorf("copy on a full disk: %v", err)
	}
	if _, d := read(t, b, "default", "before"); string(d) != "before" {
		t.Errorf("read on a full disk: %q", d)
	}
	if got := all(t, b); len(got) != 1 {
		t.Errorf("objects after the refused writes: %+v", got)
	}
	be.SetFull(false)
	mustPut(t, b, "default", "full", []byte("taken"), 0)
	if _, d := read(t, b, "default", "full"); string(d) != "taken" {
		t.Errorf("read after room came back: %q", d)
	}
}

// testObjectsReopen: a kept store opened again holds the same buckets
// (numbers, realms), records and bytes, and takes writes; a store that
// keeps nothing is empty again.
func testObjectsReopen(t *testing.T, be ObjectsBackend) {
	ctx := context.Background()
	s, err := be.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	a, b := bucketOf(t, s, "realm-1-2-dev"), bucketOf(t, s, "realm-1-3-dev")
	large := bytes.Repeat([]byte("0123456789abcdef"), 1<<17) // 2 MiB
	mustPut(t, a, "default", "small.txt", []byte("small"), 0)
	mustPut(t, a, "logs", "large.bin", large, time.Second)
	mustPut(t, b, "default", "other.txt", []byte("other"), 0)
	if _, err := b.Copy(ctx, "default", "other.txt", store.Meta{Namespace: "default", Key: "copy.txt", ContentType: "text/plain", Modified: base}, 0); err != nil {
		t.Fatal(err)
	}
	wantA, wantB := all(t, a), all(t, b)
	numA, numB := a.Number(), b.Number()
	if err := s.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	s = open(t, be)
	a2, b2 := bucketOf(t, s, "realm-1-2-dev"), bucketOf(t, s, "realm-1-3-dev")
	if !be.Kept() {
		if n, err := s.Count(ctx); err != nil || n != 0 {
			t.Errorf("a store that keeps nothing holds %d objects after a reopen (%v)", n, err)
		}
		return
	}
	if a2.Number() != numA || b2.Number() != numB {
		t.Errorf("bucket numbers %d, %d after a reopen, were %d, %d", a2.Number(), b2.Number(), numA, numB)
	}
	for n, realm := range map[int64]string{numA: "realm-1-2-dev", numB: "realm-1-3-dev"} {
		if got, err := s.RealmOf(ctx, n); err != nil || got != realm {
			t.Errorf("realm of %d after a reopen: %q, %v", n, got, err)
		}
	}
	if diff := cmp.Diff(wantA, all(t, a2), sameTime); diff != "" {
		t.Errorf("bucket a after a reopen (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(wantB, all(t, b2), sameTime); diff != "" {
		t.Errorf("bucket b after a reopen (-before +after):\n%s", diff)
	}
	for _, c := range []struct {
		b       store.Bucket
		ns, key string
		want    []byte
	}{{a2, "default", "small.txt", []byte("small")}, {a2, "logs", "large.bin", large}, {b2, "default", "copy.txt", []byte("other")}} {
		if _, d := read(t, c.b, c.ns, c.key); !bytes.Equal(d, c.want) {
			t.Errorf("%s/%s after a reopen: %d bytes, want %d", c.ns, c.key, len(d), len(c.want))
		}
	}
	if n, err := s.Count(ctx); err != nil || n != 4 {
		t.Errorf("count after a reopen: %d, %v", n, err)
	}
	mustPut(t, a2, "default", "after.txt", []byte("after"), 0)
	if per, n, err := a2.Usage(ctx); err != nil || n != 3 || per["logs"] != int64(len(large)) {
		t.Errorf("usage after a reopen: %v %d %v", per, n, err)
	}
	if c := bucketOf(t, s, "realm-1-4-dev"); c.Number() == numA || c.Number() == numB {
		t.Errorf("a new bucket after a reopen got the number %d of a kept one", c.Number())
	}
}

// testObjectsSecondOpen: while a kept store is open, a second open of the
// same store is refused, and the first goes on; once it is closed the
// store opens again.
func testObjectsSecondOpen(t *testing.T, be ObjectsBackend) {
	if !be.Kept() {
		t.Log("each open of a store that keeps nothing is a store of its own: no second open to refuse")
		return
	}
	s, err := be.Open(t)
	if err != nil {
		t.Fatal(err)
	}
	mustPut(t, bucketOf(t, s, testRealm), "default", "k", []byte("v"), 0)
	if s2, err := be.Open(t); err == nil {
		_ = s2.Close()
		t.Fatal("a second open of a store in use was not refused")
	}
	if _, d := read(t, bucketOf(t, s, testRealm), "default", "k"); string(d) != "v" {
		t.Errorf("the first store after a refused second open: %q", d)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = open(t, be)
	if _, d := read(t, bucketOf(t, s, testRealm), "default", "k"); string(d) != "v" {
		t.Errorf("after the first was closed: %q", d)
	}
}
