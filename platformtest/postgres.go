// This file is the facade of the PostgreSQL store of the data backends
// (package internal/fleetdb, pgstore*.go): the option that chooses it,
// its settings, direct SQL access to a realm's storage, and the
// schedules of the data backends (a transform's refresh and publication,
// retention and downsampling), which run on the platform clock. It serves
// no URI.

package platformtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/console"
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
)

// PostgresOption configures the PostgreSQL store of WithPostgres.
type PostgresOption func(*postgresSettings)

// postgresSettings collects what the PostgresOptions set.
type postgresSettings struct{ cfg postgres.Config }

// PostgresScratch gives the platform schemas and roles of its own, named
// with a fresh random prefix, which Close drops: a test's isolated state
// in a shared database. Without it the schemas are named after the realms
// (realm_2_26_dev) and stay after Close, so that the next platform on the
// same database finds the rows.
func PostgresScratch() PostgresOption {
	return func(s *postgresSettings) { s.cfg.Scratch = true }
}

// PostgresSchemaPrefix puts prefix before the name of every schema and
// role the platform makes, so that several platforms can share a
// database without sharing their realms' rows.
func PostgresSchemaPrefix(prefix string) PostgresOption {
	return func(s *postgresSettings) { s.cfg.Prefix = prefix }
}

// PostgresAllowDrop lets the migration at start drop the columns a
// changed data template removed and re-create, empty, the columns it
// retyped (or made secret, or no longer secret): their stored values are
// lost. Without it such a template is refused when the realm's data
// backend opens.
func PostgresAllowDrop() PostgresOption {
	return func(s *postgresSettings) { s.cfg.AllowDrop = true }
}

// PostgresWait makes the platform wait up to d for the database server
// to accept connections at start, instead of failing at once.
func PostgresWait(d time.Duration) PostgresOption {
	return func(s *postgresSettings) { s.cfg.Wait = d }
}

// WithPostgres makes the data backends keep their rows in the PostgreSQL
// database at url (postgres://user:password@host:port/database), as the
// platform does, instead of in memory: each realm a schema, each table of
// its app's data template a typed table, each transform a view
// (materialized when the template says so) computed by PostgreSQL from
// its SQL, dropAfter and downsample applied on the platform clock, and a
// read-only role per realm for direct SQL (SQLURL). Reads and writes
// answer exactly as the memory store does. TimescaleDB is used when the
// server has it (hypertables, chunkTimeInterval, columnstore, drop_chunks,
// its time_bucket); plain PostgreSQL works without. docs/postgres.md
// describes the layout.
//
// The user in url creates schemas, tables, views and roles (CREATEROLE,
// for the read-only roles). A server that cannot be reached fails Start
// (New fails the test), unless PostgresWait gives it time; a schema that
// a changed template cannot migrate without losing data, or a transform
// whose SQL PostgreSQL refuses, fails the installation that opens it.
// With a computing store SetTransformRows refuses: the rows come from the
// transform's SQL.
func WithPostgres(url string, opts ...PostgresOption) Option {
	return func(s *settings) {
		ps := postgresSettings{cfg: postgres.Config{URL: url}}
		for _, o := range opts {
			o(&ps)
		}
		s.fleetStore = func() (fleetdb.Store, store.Keys, error) {
			ps.cfg.Log = s.logger
			ps.cfg.Metrics = s.metrics
			return postgresRows(ps)
		}
	}
}

// SQLURL returns a connection string for direct SQL on realm's data
// backend: a PostgreSQL role that may read the realm's schema (its
// tables, transforms and downsampled tables) and nothing else, whose
// sessions start in that schema, so that SQL names tables by their
// template names. It needs WithPostgres; the role gets a new password
// each time the platform starts.
func (p *Platform) SQLURL(realm string) (string, error) {
	u, err := p.fleet.SQLURL(context.Background(), realm)
	if err != nil {
		return "", err
	}
	return u, nil
}

// RunSchedules runs, at once, the scheduled work of the data backends
// that is due at the platform clock's time, and returns when it is done:
// the refresh and publication of transforms whose cron schedule has come
// (transformed.<transform>), and, with WithPostgres, dropAfter and
// downsample (hourly). The schedules also run by themselves as platform
// time passes; after Clock().Advance a test calls RunSchedules to know
// that the work is done. It returns the failures, joined.
func (p *Platform) RunSchedules() error {
	return p.fleet.RunSchedules(context.Background())
}

// RefreshTransform recomputes a transform of realm (a materialized one,
// with WithPostgres) and publishes its view on transformed.<transform>, as
// a schedule tick does. On the memory store it publishes the rows
// SetTransformRows gave.
func (p *Platform) RefreshTransform(realm, transform string) error {
	return p.fleet.RefreshTransform(context.Background(), realm, transform)
}

// refreshTransformInfo refreshes a transform (RefreshTransform) and
// tells whether its store keeps its result and when it computed it, for
// flockd's refresh route and the console.
func (p *Platform) refreshTransformInfo(ctx context.Context, realm, transform string) (bool, time.Time, error) {
	if err := p.fleet.RefreshTransform(ctx, realm, transform); err != nil {
		return false, time.Time{}, err
	}
	infos, err := p.fleet.Transforms(ctx, realm)
	if err != nil {
		return false, time.Time{}, err
	}
	for _, ti := range infos {
		if ti.Name == transform {
			return ti.Materialized, ti.Refreshed, nil
		}
	}
	return false, time.Time{}, fmt.Errorf("realm %s has no transform %q", realm, transform)
}

// consoleStorage is what the console's overview shows of where the world
// is kept (storage, datadir.go) with where the store keeps the table rows
// (PostgreSQL: its server and database, no password).
func (p *Platform) consoleStorage() console.Storage {
	st := p.storage()
	st.Tables = p.fleet.StorePlace()
	return st
}

// openDataBackend opens the data backend of realm, so that a data
// template its store refuses (a transform whose SQL fails, a migration
// that would drop data) fails the installation that brought the realm.
func (p *Platform) openDataBackend(realm, app string) error {
	if err := p.fleet.Open(context.Background(), realm); err != nil {
		return fmt.Errorf("app %q: %w", app, err)
	}
	return nil
}

// seedTransformRows sets the seed's rows of a transform; a store that
// computes transforms from their SQL ignores them, with a log line.
func (p *Platform) seedTransformRows(realm, transform string, rows []map[string]any) error {
	err := p.SetTransformRows(realm, transform, rows)
	if errors.Is(err, store.ErrNotSupported) {
		p.log.Info("seed: transform_rows ignored: the data store computes the transform from its SQL", "realm", realm, "transform", transform)
		return nil
	}
	return err
}
