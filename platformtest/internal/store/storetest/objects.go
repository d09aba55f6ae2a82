// This file holds the conformance suite of the objects seam
// (store.Objects): what every backend must do with records, content,
// limits, listings, retention and buckets. objects_life.go holds the
// cases of a store's life (reopen, a second open, a full disk).

package storetest

import (
	"bytes"
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// ObjectsBackend is what a backend gives the objects suite: a place of
// its own (a fresh folder, say) made for each case.
type ObjectsBackend interface {
	// Open opens the store; for a kept backend every Open opens the same
	// stored objects.
	Open(t testing.TB) (store.Objects, error)
	// SetFull makes the store opened last refuse writes as on a full
	// disk (on), or take them again.
	SetFull(on bool)
	// Kept reports whether objects outlive Close, and a second Open
	// while a store is open is refused.
	Kept() bool
}

// RunObjects runs the objects suite on the backend newBackend makes, a
// new one for each case.
func RunObjects(t *testing.T, newBackend func(t *testing.T) ObjectsBackend) {
	cases := []struct {
		name string
		run  func(t *testing.T, be ObjectsBackend)
	}{
		{"PutStatOpen", testPutStatOpen},
		{"NotFound", testObjectNotFound},
		{"Replace", testReplace},
		{"Limit", testLimit},
		{"Copy", testCopy},
		{"List", testList},
		{"ExpireAndDropNamespace", testExpire},
		{"Buckets", testBuckets},
		{"Large", testLarge},
		{"Full", testObjectsFull},
		{"Reopen", testObjectsReopen},
		{"SecondOpen", testObjectsSecondOpen},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { c.run(t, newBackend(t)) })
	}
}

// testRealm is the realm of the suite's bucket.
const testRealm = "realm-1-2-dev"

// base is the last-modified time of the suite's objects.
var base = time.Date(2026, 3, 1, 12, 0, 0, 123_000_000, time.UTC)

// open opens be's store, closed when the test ends unless closed before.
func open(t *testing.T, be ObjectsBackend) store.Objects {
	t.Helper()
	s, err := be.Open(t)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// bucketOf returns the bucket of realm in s.
func bucketOf(t *testing.T, s store.Objects, realm string) store.Bucket {
	t.Helper()
	b, err := s.Bucket(context.Background(), realm)
	if err != nil {
		t.Fatalf("bucket %s: %v", realm, err)
	}
	return b
}

// put stores data as ns/key, modified at base+age, under limit.
func put(b store.Bucket, ns, key string, data []byte, age time.Duration, limit int64) (store.Object, error) {
	ctx := context.Background()
	w, err := b.Create(ctx, int64(len(data)))
	if err != nil {
		return store.Object{}, err
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return store.Object{}, err
	}
	return b.Put(ctx, store.Meta{Namespace: ns, Key: key, ContentType: "text/plain", Modified: base.Add(age)}, w, limit)
}

// mustPut is put that fails the test on an error.
func mustPut(t *testing.T, b store.Bucket, ns, key string, data []byte, age time.Duration) store.Object {
	t.Helper()
	o, err := put(b, ns, key, data, age, 0)
	if err != nil {
		t.Fatalf("put %s/%s: %v", ns, key, err)
	}
	return o
}

// read returns the content of ns/key read whole through ReadAt and
// through Reader, failing the test when they differ.
func read(t *testing.T, b store.Bucket, ns, key string) (store.Object, []byte) {
	t.Helper()
	o, c, err := b.Open(context.Background(), ns, key)
	if err != nil {
		t.Fatalf("open %s/%s: %v", ns, key, err)
	}
	defer c.Close()
	at := make([]byte, o.Size)
	if _, err := c.ReadAt(at, 0); err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("ReadAt %s/%s: %v", ns, key, err)
	}
	whole, err := io.ReadAll(c.Reader())
	if err != nil || !bytes.Equal(whole, at) {
		t.Fatalf("Reader of %s/%s: %d bytes, %v; ReadAt %d bytes", ns, key, len(whole), err, len(at))
	}
	return o, at
}

// record is the record the store must keep of data as ns/key.
func record(ns, key string, data []byte, age time.Duration) store.Object {
	m, s := md5.Sum(data), sha256.Sum256(data)
	return store.Object{Namespace: ns, Key: key, Size: int64(len(data)), MD5: hex.EncodeToString(m[:]),
		SHA256: hex.EncodeToString(s[:]), ContentType: "text/plain", Modified: base.Add(age)}
}

// all returns every record of b.
func all(t *testing.T, b store.Bucket) []store.Object {
	t.Helper()
	var out []store.Object
	if err := b.All(context.Background(), func(o store.Object) bool { out = append(out, o); return true }); err != nil {
		t.Fatalf("all: %v", err)
	}
	return out
}

// sameTime compares times by instant.
var sameTime = cmp.Comparer(func(a, b time.Time) bool { return a.Equal(b) })

func testPutStatOpen(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	data := []byte("hello, objects")
	got := mustPut(t, b, "default", "docs/a.txt", data, 0)
	want := record("default", "docs/a.txt", data, 0)
	if diff := cmp.Diff(want, got, sameTime); diff != "" {
		t.Errorf("put's record (-want +got):\n%s", diff)
	}
	st, err := b.Stat(context.Background(), "default", "docs/a.txt")
	if diff := cmp.Diff(want, st, sameTime); err != nil || diff != "" {
		t.Errorf("stat: %v (-want +got):\n%s", err, diff)
	}
	o, content := read(t, b, "default", "docs/a.txt")
	if !bytes.Equal(content, data) || !o.Modified.Equal(want.Modified) {
		t.Errorf("read %q modified %v, want %q", content, o.Modified, data)
	}
	_, c, err := b.Open(context.Background(), "default", "docs/a.txt")
	if err != nil {
		t.Fatal(err)
	}
	part := make([]byte, 7)
	if n, err := c.ReadAt(part, 7); n != 7 || err != nil && !errors.Is(err, io.EOF) || string(part) != "objects" {
		t.Errorf("ReadAt of a part: %q, %d, %v", part, n, err)
	}
	_ = c.Close()
	if per, n, err := b.Usage(context.Background()); err != nil || n != 1 || !cmp.Equal(per, map[string]int64{"default": int64(len(data))}) {
		t.Errorf("usage: %v %d %v", per, n, err)
	}
}

func testObjectNotFound(t *testing.T, be ObjectsBackend) {
	s := open(t, be)
	b := bucketOf(t, s, testRealm)
	ctx := context.Background()
	mustPut(t, b, "default", "there", []byte("x"), 0)
	if _, err := b.Stat(ctx, "default", "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("stat of a missing object: %v", err)
	}
	if _, err := b.Stat(ctx, "other", "there"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("stat in another namespace: %v", err)
	}
	if _, _, err := b.Open(ctx, "default", "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("open of a missing object: %v", err)
	}
	if _, err := b.Delete(ctx, "default", "missing"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("delete of a missing object: %v", err)
	}
	if _, err := b.Copy(ctx, "default", "missing", store.Meta{Namespace: "default", Key: "to"}, 0); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("copy of a missing object: %v", err)
	}
	if _, err := s.RealmOf(ctx, b.Number()+1000); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("realm of an unknown bucket number: %v", err)
	}
	if o, err := b.Delete(ctx, "default", "there"); err != nil || o.Key != "there" {
		t.Errorf("delete: %+v, %v", o, err)
	}
	if _, err := b.Stat(ctx, "default", "there"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("stat after delete: %v", err)
	}
	if per, n, err := b.Usage(ctx); err != nil || n != 0 || len(per) != 0 {
		t.Errorf("usage after delete: %v %d %v", per, n, err)
	}
}

func testReplace(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	mustPut(t, b, "default", "k", []byte("first version"), 0)
	mustPut(t, b, "default", "k", []byte("second"), time.Second)
	o, data := read(t, b, "default", "k")
	if string(data) != "second" || !o.Modified.Equal(base.Add(time.Second)) {
		t.Errorf("after replacing: %q, %v", data, o.Modified)
	}
	if per, n, err := b.Usage(context.Background()); err != nil || n != 1 || per["default"] != 6 {
		t.Errorf("usage after replacing: %v %d %v", per, n, err)
	}
}

func testLimit(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	mustPut(t, b, "default", "a", make([]byte, 60), 0)
	_, err := put(b, "default", "b", make([]byte, 50), 0, 100)
	var le *store.LimitError
	if !errors.As(err, &le) || *le != (store.LimitError{Used: 60, Limit: 100, Size: 50}) {
		t.Fatalf("put over the limit: %v", err)
	}
	if _, err := b.Stat(context.Background(), "default", "b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a refused put was kept: %v", err)
	}
	// Replacing counts the replaced object out.
	if _, err := put(b, "default", "a", make([]byte, 100), 0, 100); err != nil {
		t.Errorf("a replacement that fits: %v", err)
	}
	if _, err := b.Copy(context.Background(), "default", "a", store.Meta{Namespace: "default", Key: "c"}, 150); !errors.As(err, &le) {
		t.Errorf("copy over the limit: %v", err)
	}
	if per, n, err := b.Usage(context.Background()); err != nil || n != 1 || per["default"] != 100 {
		t.Errorf("usage after the refusals: %v %d %v", per, n, err)
	}
}

func testCopy(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	data := []byte("copied content")
	mustPut(t, b, "default", "src", data, 0)
	meta := store.Meta{Namespace: "other", Key: "dst", ContentType: "text/plain", Modified: base.Add(time.Minute)}
	got, err := b.Copy(context.Background(), "default", "src", meta, 0)
	if diff := cmp.Diff(record("other", "dst", data, time.Minute), got, sameTime); err != nil || diff != "" {
		t.Errorf("copy: %v (-want +got):\n%s", err, diff)
	}
	if _, d := read(t, b, "other", "dst"); !bytes.Equal(d, data) {
		t.Errorf("the copy holds %q", d)
	}
	if _, err := b.Delete(context.Background(), "default", "src"); err != nil {
		t.Fatal(err)
	}
	if _, d := read(t, b, "other", "dst"); !bytes.Equal(d, data) {
		t.Errorf("the copy after its source was deleted holds %q", d)
	}
}

func testList(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	for _, k := range []string{"z", "docs/2", "a.txt", "docs/1", "docs/x/3", "docsy"} {
		mustPut(t, b, "default", k, []byte(k), 0)
	}
	mustPut(t, b, "other", "docs/9", []byte("9"), 0)
	list := func(prefix, from string, skipAfter map[string]string, n int) []string {
		var keys []string
		err := b.List(context.Background(), "default", prefix, from, func(o store.Object) (string, bool) {
			keys = append(keys, o.Key)
			return skipAfter[o.Key], len(keys) < n
		})
		if err != nil {
			t.Fatalf("list: %v", err)
		}
		return keys
	}
	for _, tc := range []struct {
		prefix, from string
		skip         map[string]string
		n            int
		want         []string
	}{
		{"", "", nil, 100, []string{"a.txt", "docs/1", "docs/2", "docs/x/3", "docsy", "z"}},
		{"docs/", "", nil, 100, []string{"docs/1", "docs/2", "docs/x/3"}},
		{"", "docs/2", nil, 100, []string{"docs/2", "docs/x/3", "docsy", "z"}},
		{"", "", nil, 2, []string{"a.txt", "docs/1"}},
		{"", "", map[string]string{"docs/1": "docs0"}, 100, []string{"a.txt", "docs/1", "docsy", "z"}},
	} {
		if got := list(tc.prefix, tc.from, tc.skip, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("list prefix %q from %q skip %v: %v, want %v", tc.prefix, tc.from, tc.skip, got, tc.want)
		}
	}
	var ids []string
	for _, o := range all(t, b) {
		ids = append(ids, o.Namespace+"/"+o.Key)
	}
	if want := []string{"default/a.txt", "default/docs/1", "default/docs/2", "default/docs/x/3", "default/docsy", "default/z", "other/docs/9"}; !slices.Equal(ids, want) {
		t.Errorf("all: %v, want %v", ids, want)
	}
}

func testExpire(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	ctx := context.Background()
	mustPut(t, b, "logs", "old", []byte("o"), 0)
	mustPut(t, b, "logs", "edge", []byte("e"), time.Hour)
	mustPut(t, b, "logs", "new", []byte("n"), 2*time.Hour)
	mustPut(t, b, "default", "old", []byte("kept"), 0)
	if err := b.Expire(ctx, "logs", base.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	keys := func() []string {
		var out []string
		for _, o := range all(t, b) {
			out = append(out, o.Namespace+"/"+o.Key)
		}
		return out
	}
	if got := keys(); !slices.Equal(got, []string{"default/old", "logs/new"}) {
		t.Errorf("after expiring logs up to an hour: %v", got)
	}
	if err := b.DropNamespace(ctx, "logs"); err != nil {
		t.Fatal(err)
	}
	if got := keys(); !slices.Equal(got, []string{"default/old"}) {
		t.Errorf("after dropping logs: %v", got)
	}
	if per, n, err := b.Usage(ctx); err != nil || n != 1 || !cmp.Equal(per, map[string]int64{"default": 4}) {
		t.Errorf("usage: %v %d %v", per, n, err)
	}
}

func testBuckets(t *testing.T, be ObjectsBackend) {
	s := open(t, be)
	ctx := context.Background()
	a, b := bucketOf(t, s, "realm-1-2-dev"), bucketOf(t, s, "realm-1-3-dev")
	if a.Number() == b.Number() || bucketOf(t, s, "realm-1-2-dev").Number() != a.Number() {
		t.Fatalf("bucket numbers %d, %d, again %d", a.Number(), b.Number(), bucketOf(t, s, "realm-1-2-dev").Number())
	}
	for bk, realm := range map[store.Bucket]string{a: "realm-1-2-dev", b: "realm-1-3-dev"} {
		if got, err := s.RealmOf(ctx, bk.Number()); err != nil || got != realm {
			t.Errorf("realm of %d: %q, %v", bk.Number(), got, err)
		}
	}
	mustPut(t, a, "default", "k", []byte("a's"), 0)
	mustPut(t, b, "default", "k", []byte("b's"), 0)
	mustPut(t, b, "default", "l", []byte("b's too"), 0)
	if _, d := read(t, a, "default", "k"); string(d) != "a's" {
		t.Errorf("bucket a holds %q", d)
	}
	if n, err := s.Count(ctx); err != nil || n != 3 {
		t.Errorf("count: %d, %v", n, err)
	}
	if err := s.Drop(ctx, "realm-1-3-dev"); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(ctx, "realm-never-made"); err != nil {
		t.Errorf("drop of a realm without a bucket: %v", err)
	}
	if _, err := s.RealmOf(ctx, b.Number()); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("realm of a dropped bucket: %v", err)
	}
	if n, err := s.Count(ctx); err != nil || n != 1 {
		t.Errorf("count after drop: %d, %v", n, err)
	}
	again := bucketOf(t, s, "realm-1-3-dev")
	if again.Number() == b.Number() || again.Number() == a.Number() || len(all(t, again)) != 0 {
		t.Errorf("the bucket made again: number %d (was %d), %d objects", again.Number(), b.Number(), len(all(t, again)))
	}
}

func testLarge(t *testing.T, be ObjectsBackend) {
	b := bucketOf(t, open(t, be), testRealm)
	data := make([]byte, 3<<20)
	for i := range data {
		data[i] = byte(i * 31)
	}
	ctx := context.Background()
	w, err := b.Create(ctx, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.ReadFrom(bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Put(ctx, store.Meta{Namespace: "default", Key: "big", Modified: base}, w, 0); err != nil {
		t.Fatal(err)
	}
	if _, got := read(t, b, "default", "big"); !bytes.Equal(got, data) {
		t.Errorf("read back %d bytes, not what was written", len(got))
	}
	if _, err := b.Copy(ctx, "default", "big", store.Meta{Namespace: "default", Key: "big2", Modified: base}, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Delete(ctx, "default", "big"); err != nil {
		t.Fatal(err)
	}
	if _, got := read(t, b, "default", "big2"); !bytes.Equal(got, data) {
		t.Errorf("the copy read back %d bytes, not what was written", len(got))
	}
	w, err = b.Create(ctx, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write(data[:10])
	w.Abort()
	if n := len(all(t, b)); n != 1 {
		t.Errorf("%d objects after an aborted write", n)
	}
}
