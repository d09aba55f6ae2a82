// This file holds the entities seam: the registry's projects, devices,
// apps, installations and the rest of the fleet, each kept as a JSON
// document under its kind and ID. The registry's world lives in memory;
// its Entities is where each change is kept before the call that made it
// returns, and where a registry opened again finds its world.

package store

import "context"

// EntityKind is a kind of entity the registry keeps (a project, a
// device…).
type EntityKind string

// Entity is one kept entity: its kind, its ID within the kind and its
// document.
type Entity struct {
	Kind EntityKind
	ID   string
	Doc  []byte // nil in a change: the entity is removed
}

// Entities keeps the registry's entities.
type Entities interface {
	// Load returns every kept entity, in no particular order.
	Load() ([]Entity, error)
	// Save keeps a set of changes as one, durably before it returns:
	// each entity with a Doc replaces the one of the same Kind and ID,
	// each without one is removed.
	Save(ctx context.Context, changes []Entity) error
}
