// This file holds the keys the PostgreSQL store keeps (store.Keys): the
// key of secret columns, with the rows it seals, in the table keys of the
// store's schema (readable by the store's user only, not by the read-only
// roles):
//
//	<prefix>ironflock.keys (name text PRIMARY KEY, key bytea)
//
// A database written before this table kept the key of secret columns in
// <prefix>ironflock.secret_key (id 1); setup copies it into keys, so that
// its secrets stay readable. It serves no URI.

package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Store is the PostgreSQL store: its rows and the keys kept with them.
type Store interface {
	store.Rows
	store.Keys
}

// setupKeys makes the table of keys in schema meta (quoted) and copies a
// key the table secret_key of an earlier version holds.
func setupKeys(ctx context.Context, tx pgx.Tx, meta string) error {
	if _, err := tx.Exec(ctx, "CREATE TABLE IF NOT EXISTS "+meta+".keys (name text PRIMARY KEY, key bytea NOT NULL)"); err != nil {
		return err
	}
	var legacy bool
	if err := tx.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", meta+".secret_key").Scan(&legacy); err != nil || !legacy {
		return err
	}
	_, err := tx.Exec(ctx, "INSERT INTO "+meta+".keys (name, key) SELECT $1, key FROM "+meta+".secret_key WHERE id = 1 ON CONFLICT (name) DO NOTHING",
		store.SecretColumnsKey)
	return err
}

// Key returns the key named name kept in the store's schema, making and
// keeping it the first time. A statement that loses the race to make the
// key sees neither its own row nor (in its snapshot) the winner's: it
// runs again and reads the winner's.
func (s *pgStore) Key(ctx context.Context, name string) ([]byte, error) {
	var key []byte
	var err error
	for range 3 {
		err = s.pool.QueryRow(ctx, "WITH ins AS (INSERT INTO "+qi(s.meta)+".keys (name, key) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING key) "+
			"SELECT key FROM ins UNION ALL SELECT key FROM "+qi(s.meta)+".keys WHERE name = $1 LIMIT 1", name, store.NewKey()).Scan(&key)
		if !errors.Is(err, pgx.ErrNoRows) {
			break
		}
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: the key %s: %w", name, err)
	}
	if len(key) != store.KeySize {
		return nil, fmt.Errorf("postgres %s.keys: the key %s has %d bytes, want %d; it is neither replaced nor used", s.meta, name, len(key), store.KeySize)
	}
	return key, nil
}
