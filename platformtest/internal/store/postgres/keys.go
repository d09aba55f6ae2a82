// This file holds the key of secret columns the PostgreSQL store keeps in
// its own schema beside the rows (fleetdb.KeyStore), so that the next
// platform on the same database decrypts what the last one encrypted.

package postgres

import (
	"context"
	"fmt"
)

// SecretKey returns the key of secret columns kept in the store's schema
// (readable by the store's user only, not by the read-only roles), or
// keeps fresh when there is none yet.
func (s *pgStore) SecretKey(ctx context.Context, fresh []byte) ([]byte, error) {
	var key []byte
	err := s.pool.QueryRow(ctx, "WITH ins AS (INSERT INTO "+qi(s.meta)+".secret_key (id, key) VALUES (1, $1) ON CONFLICT (id) DO NOTHING RETURNING key) "+
		"SELECT key FROM ins UNION ALL SELECT key FROM "+qi(s.meta)+".secret_key WHERE id = 1 LIMIT 1", fresh).Scan(&key)
	if err != nil {
		return nil, fmt.Errorf("postgres: the key of secret columns: %w", err)
	}
	return key, nil
}
