// This file holds what the registry keeps and where: its entities (kind,
// ID, JSON document) through the entities seam of the storage floor
// (platformtest/internal/store: Entities, with the backends memory and
// folder). The registry's world lives in memory (State) in every case; a
// Store is where each change is kept before the call that made it
// returns, and where a registry opened again finds its world.
// store_bolt.go opens the one of a data folder.

package registry

import (
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
)

// Kind is a kind of entity the registry keeps.
type Kind = store.EntityKind

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
type Entity = store.Entity

// Store keeps the registry's entities (store.Entities).
type Store = store.Entities

// MemoryStore keeps the entities in memory: the store of a platform
// without a data folder. A registry opened again over the same
// MemoryStore finds its world.
type MemoryStore = memory.Entities

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return memory.NewEntities() }
