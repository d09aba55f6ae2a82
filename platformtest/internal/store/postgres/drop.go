// This file holds what the PostgreSQL store (postgres.go) drops: the
// schemas and roles of a scratch store when it closes, those that scratch
// stores of killed runs left (swept when a scratch store starts), and a
// realm the platform forgets (DropRealm). It serves no URI.

package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// dropSchemas drops schemas with everything in them and roles (those
// that exist) with their privileges.
func (s *pgStore) dropSchemas(ctx context.Context, schemas, roles []string) error {
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(array_agg(rolname), '{}') FROM pg_roles WHERE rolname = ANY($1)", roles).Scan(&roles); err != nil {
		return fmt.Errorf("postgres: drop schemas: %w", err)
	}
	var errs []error
	for _, r := range roles {
		if _, err := s.pool.Exec(ctx, "DROP OWNED BY "+qi(r)+" CASCADE"); err != nil {
			errs = append(errs, err)
		}
	}
	for _, n := range schemas {
		if _, err := s.pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+qi(n)+" CASCADE"); err != nil {
			errs = append(errs, err)
		}
	}
	for _, r := range roles {
		if _, err := s.pool.Exec(ctx, "DROP ROLE IF EXISTS "+qi(r)); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("postgres: drop schemas: %w", err)
	}
	return nil
}

// scratchNote starts the comment of a scratch store's own schema,
// followed by when it started.
const scratchNote = "ironflock scratch store, started "

// scratchAge is how old a scratch store's schemas are when a new scratch
// store drops them: their store is gone (a killed test), since no test
// runs that long.
const scratchAge = 3 * time.Hour

// sweepScratch drops the schemas and roles of scratch stores that
// started more than scratchAge ago and were never closed.
func (s *pgStore) sweepScratch(ctx context.Context) {
	rows, err := s.pool.Query(ctx, `SELECT nspname, obj_description(oid, 'pg_namespace') FROM pg_namespace
		WHERE nspname LIKE '%ironflock' AND starts_with(coalesce(obj_description(oid, 'pg_namespace'), ''), $1)`, scratchNote)
	if err != nil {
		s.log.Warn("postgres: looking for old scratch schemas", "err", err)
		return
	}
	var stale []string
	for rows.Next() {
		var name, note string
		if rows.Scan(&name, &note) != nil {
			continue
		}
		started, err := time.Parse(time.RFC3339, strings.TrimPrefix(note, scratchNote))
		if err == nil && time.Since(started) > scratchAge {
			stale = append(stale, strings.TrimSuffix(name, "ironflock"))
		}
	}
	rows.Close()
	for _, prefix := range stale {
		var schemas, roles []string
		_ = s.pool.QueryRow(ctx, "SELECT coalesce(array_agg(nspname), '{}') FROM pg_namespace WHERE starts_with(nspname, $1)", prefix).Scan(&schemas)
		_ = s.pool.QueryRow(ctx, "SELECT coalesce(array_agg(rolname), '{}') FROM pg_roles WHERE starts_with(rolname, $1)", prefix).Scan(&roles)
		if err := s.dropSchemas(ctx, schemas, roles); err != nil {
			s.log.Warn("postgres: dropping an old scratch store", "prefix", prefix, "err", err)
		} else {
			s.log.Info("postgres: dropped the schemas of a scratch store that was never closed", "prefix", prefix)
		}
	}
}

// DropRealm drops a realm's schema with every row and its read-only role,
// and forgets that its seed rows went in.
func (s *pgStore) DropRealm(ctx context.Context, realm string) error {
	schema := s.schemaName(realm)
	if err := s.dropSchemas(ctx, []string{schema}, []string{s.readerRole(schema)}); err != nil {
		return fmt.Errorf("postgres: drop %s: %w", schema, err)
	}
	if _, err := s.pool.Exec(ctx, "DELETE FROM "+qi(s.meta)+".seeded WHERE schema = $1", schema); err != nil { // seeds.go
		return fmt.Errorf("postgres: drop %s: forget its seed rows: %w", schema, err)
	}
	return nil
}
