// This file holds the entities seam kept in memory (store.Entities).

package memory

import (
	"context"
	"maps"
	"slices"
	"sync"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Entities keeps the registry's entities in memory: the store of a
// platform without a data folder. A registry opened again over the same
// Entities finds its world.
type Entities struct {
	mu   sync.Mutex
	docs map[store.EntityKind]map[string][]byte
}

// NewEntities returns an empty Entities.
func NewEntities() *Entities { return &Entities{docs: map[store.EntityKind]map[string][]byte{}} }

// Load returns copies of every kept entity.
func (m *Entities) Load() ([]store.Entity, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []store.Entity
	for _, kind := range slices.Sorted(maps.Keys(m.docs)) {
		for _, id := range slices.Sorted(maps.Keys(m.docs[kind])) {
			out = append(out, store.Entity{Kind: kind, ID: id, Doc: slices.Clone(m.docs[kind][id])})
		}
	}
	return out, nil
}

// Save keeps copies of the changes.
func (m *Entities) Save(_ context.Context, changes []store.Entity) error {
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
