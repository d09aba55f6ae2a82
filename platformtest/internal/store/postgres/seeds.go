// This file holds the seed ledger: a store whose rows outlive the
// platform (the PostgreSQL store) records in itself which seed rows
// (flockd's installations[].rows) it holds, by realm, table and device,
// so that they go in once per store, whatever else restarts: a platform
// in memory (flockd -memory -db) or a fresh data folder finds them there.
// The PostgreSQL store keeps the ledger in its own schema (the table
// seeded, which the read-only roles cannot read). It serves no URI.

package postgres

import (
	"context"
	"fmt"
)

// seededTable makes the PostgreSQL store's ledger (setup runs it).
func seededTable(meta string) string {
	return "CREATE TABLE IF NOT EXISTS " + meta + ".seeded (schema text NOT NULL, tbl text NOT NULL, device bigint NOT NULL, " +
		"at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (schema, tbl, device))"
}

// Seeded tells whether the seed rows of device in realm's table were
// recorded.
func (s *pgStore) Seeded(ctx context.Context, realm, table string, device int64) (bool, error) {
	var ok bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+qi(s.meta)+".seeded WHERE schema = $1 AND tbl = $2 AND device = $3)",
		s.schemaName(realm), table, device).Scan(&ok)
	if err != nil {
		return false, fmt.Errorf("postgres: the seed rows of %s.%s: %w", s.schemaName(realm), table, err)
	}
	return ok, nil
}

// MarkSeeded records the seed rows of device in realm's table.
func (s *pgStore) MarkSeeded(ctx context.Context, realm, table string, device int64) error {
	_, err := s.pool.Exec(ctx, "INSERT INTO "+qi(s.meta)+".seeded (schema, tbl, device) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
		s.schemaName(realm), table, device)
	if err != nil {
		return fmt.Errorf("postgres: record the seed rows of %s.%s: %w", s.schemaName(realm), table, err)
	}
	return nil
}
