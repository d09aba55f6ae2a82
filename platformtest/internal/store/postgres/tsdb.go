// This file holds what the PostgreSQL store (postgres.go) does only when
// the server has TimescaleDB, kept apart because the project's tests run
// on plain PostgreSQL (Debian has no TimescaleDB package): the extension
// is found (and created when the server offers it), each table becomes a
// hypertable on tsp with the template's chunkTimeInterval, columnstore
// turns on compression (after columnstoreAfter), dropAfter drops whole
// chunks, and time_bucket is TimescaleDB's. Without TimescaleDB,
// chunkTimeInterval and columnstore are accepted and reported as not
// applied (notes). It serves no URI.

package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// tsdbInfo is TimescaleDB in the database.
type tsdbInfo struct {
	version string
	schema  string // where its functions are
}

// detectTimescale finds TimescaleDB, creating the extension when the
// server offers it; nil when it has none (or it cannot be created: it
// must be preloaded).
func detectTimescale(ctx context.Context, tx pgx.Tx) (*tsdbInfo, error) {
	var available bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'timescaledb')").Scan(&available); err != nil {
		return nil, err
	}
	if !available {
		return nil, nil
	}
	// A savepoint: a failure leaves the setup's transaction usable.
	if err := pgx.BeginFunc(ctx, tx, func(sp pgx.Tx) error {
		_, err := sp.Exec(ctx, "CREATE EXTENSION IF NOT EXISTS timescaledb")
		return err
	}); err != nil {
		return nil, nil
	}
	info := &tsdbInfo{}
	err := tx.QueryRow(ctx, `SELECT e.extversion, n.nspname FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
		WHERE e.extname = 'timescaledb'`).Scan(&info.version, &info.schema)
	if err != nil {
		return nil, err
	}
	return info, nil
}

// hypertableDDL makes a new table a hypertable with the template's
// chunk interval and compression.
func (s *pgStore) hypertableDDL(qualified string, ts *store.TableSchema) []string {
	if s.tsdb == nil || ts.Def == nil {
		return nil
	}
	f := qi(s.tsdb.schema) + "."
	ht := "SELECT " + f + "create_hypertable(" + ql(qualified) + ", 'tsp'"
	if ts.Def.ChunkTimeInterval != "" {
		ht += ", chunk_time_interval => " + ql(ts.Def.ChunkTimeInterval) + "::interval"
	}
	stmts := []string{ht + ")"}
	if ts.Def.Columnstore {
		stmts = append(stmts, "ALTER TABLE "+qualified+" SET (timescaledb.compress)")
		if ts.Def.ColumnstoreAfter != "" {
			stmts = append(stmts, "SELECT "+f+"add_compression_policy("+ql(qualified)+", "+ql(ts.Def.ColumnstoreAfter)+"::interval)")
		}
	}
	return stmts
}

// retentionSQL deletes the rows of a table older than the cutoff
// parameter $1, a chunk's start (maintain): whole chunks with
// TimescaleDB, the rows of those chunks without.
func (s *pgStore) retentionSQL(pt *pgTable) string {
	if s.tsdb != nil {
		return "SELECT " + qi(s.tsdb.schema) + ".drop_chunks(" + ql(pt.name) + ", older_than => $1::timestamptz)"
	}
	return "DELETE FROM " + pt.name + " WHERE tsp < $1::timestamptz"
}

// bucketFunc is the qualified time_bucket of a realm's schema.
func (t *pgTables) bucketFunc() string {
	if t.s.tsdb != nil {
		return qi(t.s.tsdb.schema) + ".time_bucket"
	}
	return qi(t.schema) + ".time_bucket"
}

// notes returns what the store accepts in a schema but does not apply.
func (s *pgStore) notes(sc *store.Schema) []string {
	if s.tsdb != nil {
		return nil
	}
	var out []string
	for _, ts := range sc.Tables {
		if ts.Def == nil {
			continue
		}
		if ts.Def.ChunkTimeInterval != "" {
			out = append(out, fmt.Sprintf("table %q: chunkTimeInterval %q makes no chunks: the server has no TimescaleDB (dropAfter drops the rows its chunks would hold)", ts.Name, ts.Def.ChunkTimeInterval))
		}
		if ts.Def.Columnstore {
			out = append(out, fmt.Sprintf("table %q: columnstore is not applied: the server has no TimescaleDB", ts.Name))
		}
	}
	return out
}

// Notes returns what the store accepts in the realm's schema but does not
// apply.
func (t *pgTables) Notes() []string { return t.s.notes(t.sc) }
