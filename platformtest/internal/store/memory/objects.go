// This file holds the memory store.Objects: per realm a bucket, a map of
// records with their content in memory or in spill files
// (objects_blob.go, objects_spill.go). Nothing outlives the store.

package memory

import (
	"context"
	"fmt"
	"log/slog"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Objects is the memory store.Objects: buckets numbered from 1 in the
// order they are made, their objects in memory (content above 1 MiB in
// files of the spill folder, removed by Close).
type Objects struct {
	spill *spillDir
	full  atomic.Bool // SimulateFull

	mu      sync.Mutex // guards what follows
	buckets map[string]*bucket
	byNum   map[int64]string
	next    int64
}

// NewObjects returns an empty store whose large content goes into a
// folder of its own in the spill folder spillDir ("": DefaultSpillDir()),
// after removing what processes that are gone left there.
func NewObjects(spillDir string, log *slog.Logger) *Objects {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Objects{spill: newSpillDir(spillDir, log), buckets: map[string]*bucket{}, byNum: map[int64]string{}, next: 1}
}

// SimulateFull makes every write fail with store.ErrFull (on), keeping
// nothing of it, until it is turned off again: a test hook, as
// datadir.Dir.SimulateFull is for a data folder.
func (s *Objects) SimulateFull(on bool) { s.full.Store(on) }

// fullErr returns store.ErrFull while the store simulates a full disk.
func (s *Objects) fullErr(what string) error {
	if s.full.Load() {
		return fmt.Errorf("%s: %w (simulated)", what, store.ErrFull)
	}
	return nil
}

// Bucket returns the bucket of realm, making it the first time.
func (s *Objects) Bucket(_ context.Context, realm string) (store.Bucket, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.buckets[realm]; b != nil {
		return b, nil
	}
	b := &bucket{s: s, num: s.next, objects: map[objectID]*entry{}}
	s.next++
	s.buckets[realm], s.byNum[b.num] = b, realm
	return b, nil
}

// RealmOf returns the realm of bucket number n.
func (s *Objects) RealmOf(_ context.Context, n int64) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if realm, ok := s.byNum[n]; ok {
		return realm, nil
	}
	return "", fmt.Errorf("bucket %d: %w", n, store.ErrNotFound)
}

// Drop removes the bucket of realm with its objects.
func (s *Objects) Drop(_ context.Context, realm string) error {
	s.mu.Lock()
	b := s.buckets[realm]
	if b != nil {
		delete(s.buckets, realm)
		delete(s.byNum, b.num)
	}
	s.mu.Unlock()
	if b != nil {
		b.clear()
	}
	return nil
}

// Count returns the objects of every bucket.
func (s *Objects) Count(context.Context) (int64, error) {
	var n int64
	for _, b := range s.all() {
		b.mu.Lock()
		n += int64(len(b.objects))
		b.mu.Unlock()
	}
	return n, nil
}

// all returns the buckets.
func (s *Objects) all() []*bucket {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Values(s.buckets))
}

// Close drops every object (nothing outlives the store) and removes the
// store's spill files.
func (s *Objects) Close() error {
	s.mu.Lock()
	bs := s.buckets
	s.buckets, s.byNum = map[string]*bucket{}, map[int64]string{}
	s.mu.Unlock()
	for _, b := range bs {
		b.clear()
	}
	s.spill.remove()
	return nil
}

// objectID names an object in a bucket.
type objectID struct{ ns, key string }

// entry is a stored object: its record and its content.
type entry struct {
	rec  store.Object
	blob *blob
}

// bucket is the memory store.Bucket of one realm.
type bucket struct {
	s   *Objects
	num int64

	mu      sync.Mutex // guards what follows
	objects map[objectID]*entry
	used    int64 // bytes stored
}

func (b *bucket) Number() int64 { return b.num }

func notFound(ns, key string) error {
	return fmt.Errorf("object %q in namespace %q: %w", key, ns, store.ErrNotFound)
}

func (b *bucket) Stat(_ context.Context, ns, key string) (store.Object, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.objects[objectID{ns, key}]
	if e == nil {
		return store.Object{}, notFound(ns, key)
	}
	return e.rec, nil
}

func (b *bucket) Open(_ context.Context, ns, key string) (store.Object, store.Content, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	e := b.objects[objectID{ns, key}]
	if e == nil {
		return store.Object{}, nil, notFound(ns, key)
	}
	return e.rec, &content{b: e.blob.acquire()}, nil
}

func (b *bucket) Create(_ context.Context, size int64) (store.Writer, error) {
	if err := b.s.fullErr("storing content"); err != nil {
		return nil, err
	}
	return b.s.spill.newBlobWriter(size)
}

// after returns the bytes stored once size bytes replace id. The caller
// holds b.mu.
func (b *bucket) after(id objectID, size int64) int64 {
	after := b.used + size
	if e := b.objects[id]; e != nil {
		after -= e.blob.size
	}
	return after
}

// record stores bl as meta's object when it fits limit; the blob's
// reference passes to the bucket, or is released on failure.
func (b *bucket) record(meta store.Meta, bl *blob, limit int64) (store.Object, error) {
	if err := b.s.fullErr("storing the object"); err != nil {
		bl.release()
		return store.Object{}, err
	}
	id := objectID{meta.Namespace, meta.Key}
	rec := store.Object{Namespace: meta.Namespace, Key: meta.Key, Size: bl.size, MD5: bl.md5, SHA256: bl.sha256,
		ContentType: meta.ContentType, Modified: meta.Modified}
	b.mu.Lock()
	if err := store.CheckLimit(b.used, b.after(id, bl.size), bl.size, limit); err != nil {
		b.mu.Unlock()
		bl.release()
		return store.Object{}, err
	}
	old := b.objects[id]
	b.objects[id] = &entry{rec: rec, blob: bl}
	b.used += bl.size
	if old != nil {
		b.used -= old.blob.size
	}
	b.mu.Unlock()
	if old != nil {
		old.blob.release()
	}
	return rec, nil
}

func (b *bucket) Put(_ context.Context, meta store.Meta, w store.Writer, limit int64) (store.Object, error) {
	sw, ok := w.(*spillWriter)
	if !ok {
		w.Abort()
		return store.Object{}, fmt.Errorf("memory objects: put of content of another store (%T)", w)
	}
	return b.record(meta, sw.finish(), limit)
}

func (b *bucket) Copy(_ context.Context, ns, key string, meta store.Meta, limit int64) (store.Object, error) {
	b.mu.Lock()
	e := b.objects[objectID{ns, key}]
	var bl *blob
	if e != nil {
		bl = e.blob.acquire()
	}
	b.mu.Unlock()
	if bl == nil {
		return store.Object{}, notFound(ns, key)
	}
	return b.record(meta, bl, limit)
}

func (b *bucket) Delete(_ context.Context, ns, key string) (store.Object, error) {
	b.mu.Lock()
	e := b.objects[objectID{ns, key}]
	if e != nil {
		delete(b.objects, objectID{ns, key})
		b.used -= e.blob.size
	}
	b.mu.Unlock()
	if e == nil {
		return store.Object{}, notFound(ns, key)
	}
	e.blob.release()
	return e.rec, nil
}

func (b *bucket) List(_ context.Context, ns, prefix, from string, fn func(store.Object) (string, bool)) error {
	b.mu.Lock()
	var recs []store.Object
	for id, e := range b.objects {
		if id.ns == ns && strings.HasPrefix(id.key, prefix) && id.key >= from {
			recs = append(recs, e.rec)
		}
	}
	b.mu.Unlock()
	slices.SortFunc(recs, func(x, y store.Object) int { return strings.Compare(x.Key, y.Key) })
	for i := 0; i < len(recs); {
		skip, more := fn(recs[i])
		if !more {
			break
		}
		i++
		if skip != "" {
			i += sort.Search(len(recs)-i, func(j int) bool { return recs[i+j].Key >= skip })
		}
	}
	return nil
}

func (b *bucket) All(_ context.Context, fn func(store.Object) bool) error {
	b.mu.Lock()
	ids := slices.SortedFunc(maps.Keys(b.objects), compareIDs)
	recs := make([]store.Object, len(ids))
	for i, id := range ids {
		recs[i] = b.objects[id].rec
	}
	b.mu.Unlock()
	for _, r := range recs {
		if !fn(r) {
			break
		}
	}
	return nil
}

// compareIDs orders object ids by namespace, then key.
func compareIDs(x, y objectID) int {
	if c := strings.Compare(x.ns, y.ns); c != 0 {
		return c
	}
	return strings.Compare(x.key, y.key)
}

func (b *bucket) Expire(_ context.Context, ns string, upTo time.Time) error {
	b.removeIf(func(e *entry) bool { return e.rec.Namespace == ns && !e.rec.Modified.After(upTo) })
	return nil
}

func (b *bucket) DropNamespace(_ context.Context, ns string) error {
	b.removeIf(func(e *entry) bool { return e.rec.Namespace == ns })
	return nil
}

// removeIf deletes the objects for which drop is true.
func (b *bucket) removeIf(drop func(*entry) bool) {
	var gone []*entry
	b.mu.Lock()
	for id, e := range b.objects {
		if drop(e) {
			delete(b.objects, id)
			b.used -= e.blob.size
			gone = append(gone, e)
		}
	}
	b.mu.Unlock()
	for _, e := range gone {
		e.blob.release()
	}
}

// clear drops every object.
func (b *bucket) clear() { b.removeIf(func(*entry) bool { return true }) }

func (b *bucket) Usage(context.Context) (map[string]int64, int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	per := map[string]int64{}
	for id, e := range b.objects {
		per[id.ns] += e.blob.size
	}
	return per, int64(len(b.objects)), nil
}
