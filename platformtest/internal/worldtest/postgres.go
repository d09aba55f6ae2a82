package worldtest

import (
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// EachPostgres runs body as a subtest with the connection string of the
// test database (storetest.PostgresURL); without one there is nothing to
// run.
func EachPostgres(t *testing.T, body func(t *testing.T, url string)) {
	t.Helper()
	if url := storetest.PostgresURL(t); url != "" {
		t.Run("store=postgres", func(t *testing.T) { body(t, url) })
	}
}
