// This file holds the memory store.Keys: keys made at random on first
// use and kept as long as the value lives (a platform's life), so that
// they die with the rows and objects in memory they protect.

package memory

import (
	"context"
	"slices"
	"sync"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Keys is the memory store.Keys.
type Keys struct {
	mu   sync.Mutex
	keys map[string][]byte
}

// NewKeys returns a store of keys that holds none yet.
func NewKeys() *Keys { return &Keys{keys: map[string][]byte{}} }

// Key returns the key named name, making it the first time.
func (k *Keys) Key(_ context.Context, name string) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	key := k.keys[name]
	if key == nil {
		key = store.NewKey()
		k.keys[name] = key
	}
	return slices.Clone(key), nil
}
