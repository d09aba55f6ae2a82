// This file holds what the registry keeps and where: the Store interface,
// in terms of the registry's entities (kind, ID, JSON document), and its
// memory implementation. The registry's world lives in memory (State) in
// every case; a Store is where each change is kept before the call that
// made it returns, and where a registry opened again finds its world.
// store_bolt.go keeps it in a data folder.

package registry

import (
	"context"
	"maps"
	"slices"
	"sync"
)

// Kind is a kind of entity the registry keeps.
type Kind string

// The kinds of kept entities, in the order a registry loads them (an
// entity names only entities of kinds before its own).
const (
	KindCounter      Kind = "counter" // the next key to try, per kind of key
	KindProject      Kind = "project"
	KindUser         Kind = "user"
	KindApp          Kind = "app"
	KindRelease      Kind = "release"
	KindDevice       Kind = "device"
	KindGroup        Kind = "group"
	KindInstallation Kind = "installation"
	KindRealm        Kind = "realm"
	KindGrant        Kind = "grant"
)

// Kinds lists every kind in load order.
var Kinds = []Kind{KindCounter, KindProject, KindUser, KindApp, KindRelease, KindDevice, KindGroup,
	KindInstallation, KindRealm, KindGrant}

// Entity is one kept entity: its kind, its ID within the kind (a key, a
// name, or keys joined by '/') and its JSON document. A new field of an
// entity is a new key in its document: older documents read without it.
type Entity struct {
	Kind Kind
	ID   string
	Doc  []byte // nil in a change: the entity is removed
}

// Store keeps the registry's entities.
type Store interface {
	// Load returns every kept entity, in no particular order.
	Load() ([]Entity, error)
	// Save keeps a set of changes as one, durably before it returns:
	// each entity with a Doc replaces the one of the same Kind and ID,
	// each without one is removed.
	Save(ctx context.Context, changes []Entity) error
}

// MemoryStore keeps the entities in memory: the store of a platform
// without a data folder. A registry opened again over the same
// MemoryStore finds its world.
type MemoryStore struct {
	mu   sync.Mutex
	docs map[Kind]map[string][]byte
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{docs: map[Kind]map[string][]byte{}} }

// Load returns copies of every kept entity.
func (m *MemoryStore) Load() ([]Entity, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Entity
	for _, kind := range slices.Sorted(maps.Keys(m.docs)) {
		for _, id := range slices.Sorted(maps.Keys(m.docs[kind])) {
			out = append(out, Entity{Kind: kind, ID: id, Doc: slices.Clone(m.docs[kind][id])})
		}
	}
	return out, nil
}

// Save keeps copies of the changes.
func (m *MemoryStore) Save(_ context.Context, changes []Entity) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range changes {
		if e.Doc == nil {
			delete(m.docs[e.Kind], e.ID)
			continue
		}
		if m.docs[e.Kind] == nil {
			m.docs[e.Kind] = map[string][]byte{}
		}
		m.docs[e.Kind][e.ID] = slices.Clone(e.Doc)
	}
	return nil
}
