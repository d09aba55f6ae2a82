package memory

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// TestRows runs the rows suite: the memory store keeps nothing past
// Close.
func TestRows(t *testing.T) {
	storetest.Rows(t, storetest.RowsBackend{Open: func(*testing.T) store.Rows { return New() }})
}
