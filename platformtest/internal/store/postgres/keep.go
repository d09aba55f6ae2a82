// This file holds what the PostgreSQL store offers the reconciliation
// with flockd's configuration besides DropRealm (drop.go): Drop
// (Dropper, store.go), which removes the tables and columns a changed
// data template removes or retypes once the reconciliation allowed it, so
// that the next Open of the realm finds nothing to refuse and adds what
// the template adds. It serves no URI.

package postgres

import (
	"context"
	"fmt"
	"slices"
)

// Drop removes tables (with their downsample tables) and columns of a
// realm's schema with their values, in one transaction. What the schema
// does not hold is no error.
func (s *pgStore) Drop(ctx context.Context, realm string, tables []string, columns map[string][]string) error {
	schema := qi(s.schemaName(realm))
	var stmts []string
	for _, t := range tables {
		stmts = append(stmts, "DROP TABLE IF EXISTS "+schema+"."+qi(t)+" CASCADE", "DROP TABLE IF EXISTS "+schema+"."+qi(t+"_ds")+" CASCADE")
	}
	for t, cols := range columns {
		if slices.Contains(tables, t) {
			continue
		}
		for _, c := range cols {
			stmts = append(stmts, "ALTER TABLE IF EXISTS "+schema+"."+qi(t)+" DROP COLUMN IF EXISTS "+qi(c))
		}
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("postgres: drop in %s: %w", schema, err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	for _, st := range stmts {
		if _, err := tx.Exec(ctx, st); err != nil {
			return fmt.Errorf("postgres: %s: %w", st, err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("postgres: drop in %s: %w", schema, err)
	}
	return nil
}
