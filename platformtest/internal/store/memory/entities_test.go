package memory_test

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// TestEntities runs the entities suite on memory: the place is the
// Entities value, opened again by the registry over it.
func TestEntities(t *testing.T) {
	es := memory.NewEntities()
	storetest.TestEntities(t, storetest.EntitiesBackend{
		Open: func(*testing.T) (store.Entities, func() error, error) { return es, func() error { return nil }, nil },
	})
}
