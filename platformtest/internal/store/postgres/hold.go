// This file holds the store's hold on its prefix: a session of its own
// keeps a session-level advisory lock on the store's schema for the
// store's life, so that a second store on the same database and prefix
// (another flockd, another platform) is refused while the first runs. The
// lock ends with its session: a killed process's hold ends when the server
// sees its connection close, so a restart after kill -9 waits at most
// holdWait for it.

package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// holdWait is how long New waits for another store to let go of the
// prefix before it refuses to open.
const holdWait = 3 * time.Second

// holdKey is the second key of the advisory lock (the first is the hash
// of the store's schema): the two-key form keeps it apart from the
// one-key locks of setup and migrations.
const holdKey = 0x1f10c

// hold takes the store's hold on its prefix with a connection of its own
// (cc), waiting up to holdWait plus cfg.Wait for a holder to let go.
func (s *pgStore) hold(ctx context.Context, cc *pgx.ConnConfig) error {
	conn, err := pgx.ConnectConfig(ctx, cc)
	if err != nil {
		return fmt.Errorf("postgres: hold the store %q at %s: %w", s.meta, s.where(), err)
	}
	deadline := time.Now().Add(holdWait + s.cfg.Wait)
	for {
		var held bool
		if err := conn.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext($1), $2)", s.meta, holdKey).Scan(&held); err != nil {
			_ = conn.Close(context.Background())
			return fmt.Errorf("postgres: hold the store %q at %s: %w", s.meta, s.where(), err)
		}
		if held {
			s.holder = conn
			return nil
		}
		if !time.Now().Before(deadline) {
			_ = conn.Close(context.Background())
			return fmt.Errorf("postgres: the store %q at %s is in use by another flockd or platform (it holds the schema's lock); "+
				"stop it, or give this one another prefix", s.meta, s.where())
		}
		select {
		case <-ctx.Done():
			_ = conn.Close(context.Background())
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// release ends the hold (with its session).
func (s *pgStore) release() {
	if s.holder != nil {
		_ = s.holder.Close(context.Background())
		s.holder = nil
	}
}
