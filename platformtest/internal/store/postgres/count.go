// This file holds the PostgreSQL store's count of the rows it holds over
// every realm (RowCounter), for the console's overview.

package postgres

import (
	"context"
	"fmt"
	"strings"
)

// CountRows returns how many rows the tables of every realm's schema hold
// (error-logs included; transforms, views of them, are not counted): one
// count(*) per table, in one statement.
func (s *pgStore) CountRows(ctx context.Context) (int64, error) {
	rows, err := s.pool.Query(ctx, `SELECT schemaname, tablename FROM pg_tables WHERE starts_with(schemaname, $1)`, s.prefix+"realm_")
	if err != nil {
		return 0, fmt.Errorf("postgres: count the rows: %w", err)
	}
	var counts []string
	for rows.Next() {
		var schema, table string
		if err := rows.Scan(&schema, &table); err != nil {
			rows.Close()
			return 0, fmt.Errorf("postgres: count the rows: %w", err)
		}
		counts = append(counts, "(SELECT count(*) FROM "+qi(schema)+"."+qi(table)+")")
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, fmt.Errorf("postgres: count the rows: %w", err)
	}
	if len(counts) == 0 {
		return 0, nil
	}
	var n int64
	if err := s.pool.QueryRow(ctx, "SELECT "+strings.Join(counts, " + ")).Scan(&n); err != nil {
		return 0, fmt.Errorf("postgres: count the rows: %w", err)
	}
	return n, nil
}
