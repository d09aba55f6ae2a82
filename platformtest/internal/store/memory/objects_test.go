package memory_test

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// objectsBackend opens memory stores spilling into a folder of the
// test's own.
type objectsBackend struct {
	spill string
	last  *memory.Objects
}

func (b *objectsBackend) Open(testing.TB) (store.Objects, error) {
	b.last = memory.NewObjects(b.spill, nil)
	return b.last, nil
}

func (b *objectsBackend) SetFull(on bool) { b.last.SimulateFull(on) }

func (b *objectsBackend) Kept() bool { return false }

// TestObjects runs the objects suite on the memory store.
func TestObjects(t *testing.T) {
	storetest.RunObjects(t, func(t *testing.T) storetest.ObjectsBackend {
		return &objectsBackend{spill: t.TempDir()}
	})
}
