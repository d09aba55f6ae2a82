package postgres

import (
	"context"
	"testing"
)

// openScratch opens a scratch store (its schemas and roles dropped when
// it closes) at url with cfg's other settings, closed when the test ends.
func openScratch(tb testing.TB, url string, cfg Config) *pgStore {
	tb.Helper()
	cfg.URL, cfg.Scratch = url, true
	if cfg.MaxConns == 0 {
		cfg.MaxConns = 4
	}
	s, err := New(context.Background(), cfg)
	if err != nil {
		tb.Fatalf("PostgreSQL test database: %v", err)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s.(*pgStore)
}
