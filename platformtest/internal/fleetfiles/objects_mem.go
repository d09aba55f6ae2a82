// This file holds the memory objectStore (objects.go), a bucket's objects
// without a data folder: a map of records, content in memory or in spill
// files (blob.go). Nothing outlives the service. It serves no URI.

package fleetfiles

import (
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
)

// memObjects is the memory objectStore of one bucket.
type memObjects struct {
	spill *spillDir

	mu      sync.Mutex // guards what follows
	objects map[objectID]*object
	used    int64 // bytes stored
}

func newMemObjects(spill *spillDir) *memObjects {
	return &memObjects{spill: spill, objects: map[objectID]*object{}}
}

func (m *memObjects) get(ns, key string) (*object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := m.objects[objectID{ns, key}]
	if o == nil {
		return nil, nil
	}
	cp := *o
	cp.blob = o.blob.acquire()
	return &cp, nil
}

// after returns the bytes stored once size bytes replace ns/key. The
// caller holds m.mu.
func (m *memObjects) after(ns, key string, size int64) int64 {
	after := m.used + size
	if o := m.objects[objectID{ns, key}]; o != nil {
		after -= o.blob.size
	}
	return after
}

func (m *memObjects) fits(ns, key string, size, quota int64) (*failure, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return quotaFailure(m.used, m.after(ns, key, size), size, quota), nil
}

func (m *memObjects) put(o *object, quota int64) (*object, *failure, error) {
	m.mu.Lock()
	if f := quotaFailure(m.used, m.after(o.ns, o.key, o.blob.size), o.blob.size, quota); f != nil {
		m.mu.Unlock()
		o.blob.release()
		return nil, f, nil
	}
	old := m.objects[o.objectID]
	m.objects[o.objectID] = o
	m.used += o.blob.size
	if old != nil {
		m.used -= old.blob.size
	}
	m.mu.Unlock()
	if old != nil {
		old.blob.release()
	}
	return old, nil, nil
}

func (m *memObjects) remove(ns, key string) (*object, error) {
	m.mu.Lock()
	o := m.objects[objectID{ns, key}]
	if o != nil {
		delete(m.objects, o.objectID)
		m.used -= o.blob.size
	}
	m.mu.Unlock()
	if o != nil {
		o.blob.release()
	}
	return o, nil
}

func (m *memObjects) scan(ns, prefix, from string, fn func(*object) (string, bool)) error {
	m.mu.Lock()
	var objs []*object
	for id, o := range m.objects {
		if id.ns == ns && strings.HasPrefix(id.key, prefix) && id.key >= from {
			objs = append(objs, o)
		}
	}
	m.mu.Unlock()
	slices.SortFunc(objs, func(x, y *object) int { return strings.Compare(x.key, y.key) })
	for i := 0; i < len(objs); {
		skip, more := fn(objs[i])
		if !more {
			break
		}
		i++
		if skip != "" {
			i += sort.Search(len(objs)-i, func(j int) bool { return objs[i+j].key >= skip })
		}
	}
	return nil
}

func (m *memObjects) all(fn func(*object) bool) error {
	m.mu.Lock()
	ids := slices.SortedFunc(maps.Keys(m.objects), compareIDs)
	objs := make([]*object, len(ids))
	for i, id := range ids {
		objs[i] = m.objects[id]
	}
	m.mu.Unlock()
	for _, o := range objs {
		if !fn(o) {
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

func (m *memObjects) expire(ns string, upTo time.Time) error {
	return m.removeIf(func(o *object) bool { return o.ns == ns && !o.modified.After(upTo) })
}

func (m *memObjects) removeNamespace(ns string) error {
	return m.removeIf(func(o *object) bool { return o.ns == ns })
}

// removeIf deletes the objects for which drop is true.
func (m *memObjects) removeIf(drop func(*object) bool) error {
	var expired []*object
	m.mu.Lock()
	for id, o := range m.objects {
		if drop(o) {
			delete(m.objects, id)
			m.used -= o.blob.size
			expired = append(expired, o)
		}
	}
	m.mu.Unlock()
	for _, o := range expired {
		o.blob.release()
	}
	return nil
}

func (m *memObjects) usage() (map[string]int64, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	per := map[string]int64{}
	for id, o := range m.objects {
		per[id.ns] += o.blob.size
	}
	return per, int64(len(m.objects)), nil
}

func (m *memObjects) newBlob(size int64) (blobWriter, error) { return m.spill.newBlobWriter(size) }

func (m *memObjects) copyBlob(bl *blob) (*blob, error) { return bl.acquire(), nil }

func (m *memObjects) clear() error {
	m.mu.Lock()
	objs := m.objects
	m.objects, m.used = map[objectID]*object{}, 0
	m.mu.Unlock()
	for _, o := range objs {
		o.blob.release()
	}
	return nil
}

// close drops every object: nothing outlives the service in memory.
func (m *memObjects) close() { _ = m.clear() }
