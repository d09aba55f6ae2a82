package memory_test

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// keysBackend opens memory keys: each open a store of its own.
type keysBackend struct{}

func (keysBackend) Open(testing.TB) (store.Keys, func() error, error) {
	return memory.NewKeys(), func() error { return nil }, nil
}

func (keysBackend) Kept() bool      { return false }
func (keysBackend) Exclusive() bool { return false }

// TestKeys runs the keys suite on memory keys.
func TestKeys(t *testing.T) {
	storetest.RunKeys(t, func(*testing.T) storetest.KeysBackend { return keysBackend{} })
}
