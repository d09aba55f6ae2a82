// This file holds the PostgreSQL store (package store): its configuration, the
// connection pool (pgx v5, pgxpool), the wait for the server at start,
// the detection of TimescaleDB, the names of schemas and roles and Open,
// which makes or migrates a realm's schema (ddl.go). Its writes
// are in write.go, its reads in read.go (filters as SQL in
// filter.go, series in series.go), transforms in
// views.go, retention and downsampling in knobs.go, the
// read-only roles of direct SQL in roles.go, what it drops in
// drop.go, its SQL functions in funcs.go and what only
// TimescaleDB does in tsdb.go. It serves no URI.
//
// Layout: each realm realm-<S>-<A>-<stage> is a schema named
// <prefix>realm_<S>_<A>_<stage>; each template table a table of it under
// its template name, with its columns typed (numeric: double precision,
// bigint, timestamp: timestamptz, string: text COLLATE "C", boolean, json:
// jsonb) and device_key, authid (and id for error-logs), plus _seq, the
// insertion sequence; each transform a view (a materialized one when the
// template says materialize). The store's own SQL functions live in the
// schema <prefix>ironflock. SQL does the work: a read is one statement,
// filters included; nothing reads a table into Go to filter it.
//
// Choices where the documents are silent: numeric is double precision,
// the form the data service (JavaScript numbers) stores and reads; text
// columns compare byte-wise (COLLATE "C"), as the memory store does.

package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flockgo/ironflock/platformtest/internal/metrics"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Config configures a PostgreSQL store (New).
type Config struct {
	// URL is the connection string, postgres://user:password@host:port/db
	// (or key=value pairs), as pgx reads it.
	URL string
	// Prefix goes before the name of every schema and role the store
	// makes; empty by default.
	Prefix string
	// Scratch makes the store use a fresh random prefix of its own (after
	// Prefix) and drop every schema and role it made when it closes: an
	// isolated store for one test.
	Scratch bool
	// AllowDrop lets the migration at Open drop the columns a changed
	// template removed and re-create, empty, the columns it retyped (their
	// values are lost). Without it Open refuses such a template.
	AllowDrop bool
	// Wait is how long New waits for the server to accept
	// connections; 0 fails at once when it cannot connect.
	Wait time.Duration
	// MaxConns bounds the connection pool; 0 is pgxpool's default.
	MaxConns int32
	// Log receives the store's log lines; nil discards them.
	Log *slog.Logger
	// Metrics receives the duration of the store's statements through
	// pgx's tracer (trace.go); nil: not timed.
	Metrics *metrics.Registry
}

// pgStore is the PostgreSQL store.
type pgStore struct {
	cfg    Config
	pool   *pgxpool.Pool
	log    *slog.Logger
	prefix string // before every schema and role name
	meta   string // the schema of the store's own functions
	tsdb   *tsdbInfo
	fold   string         // the collation ILIKE folds case in; empty without ICU
	conn   *pgconn.Config // where the server is, for the read-only URLs

	mu      sync.Mutex
	schemas []string // opened, for Close of a scratch store
	roles   []string
	closed  bool
	// sqlPools are the console's sessions per realm schema
	// (console.go).
	sqlPools map[string]*pgxpool.Pool
	// holder is the session that holds the store's prefix (hold.go).
	holder *pgx.Conn
}

// New connects to the PostgreSQL server at cfg.URL (waiting
// up to cfg.Wait for it) and returns a store that keeps each realm in a
// schema of its own, and the keys that go with its rows (store.Keys,
// keys.go). It fails with a message naming the server when it
// cannot reach it.
func New(ctx context.Context, cfg Config) (Store, error) {
	pc, err := pgxpool.ParseConfig(cfg.URL)
	if err != nil {
		return nil, fmt.Errorf("postgres: the connection string: %w", err)
	}
	if cfg.MaxConns > 0 {
		pc.MaxConns = cfg.MaxConns
	}
	if tr := newPGTracer(cfg.Metrics); tr != nil {
		pc.ConnConfig.Tracer = tr
	}
	prefix := cfg.Prefix
	if cfg.Scratch {
		b := make([]byte, 4)
		_, _ = rand.Read(b)
		prefix += "ift" + hex.EncodeToString(b) + "_"
	}
	if pc.ConnConfig.RuntimeParams == nil {
		pc.ConnConfig.RuntimeParams = map[string]string{}
	}
	pc.ConnConfig.RuntimeParams["application_name"] = "ironflock " + strings.TrimSuffix(prefix, "_")
	pc.ConnConfig.RuntimeParams["timezone"] = "UTC"
	// The store's statements are short: compiling them (JIT) costs more
	// than it saves, and a series groups few buckets that the planner
	// cannot foresee (it expects a group per row), so memory for hashing
	// them keeps it from sorting a table on disk.
	pc.ConnConfig.RuntimeParams["jit"] = "off"
	pc.ConnConfig.RuntimeParams["work_mem"] = "64MB"
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &pgStore{cfg: cfg, log: log, prefix: prefix, meta: prefix + "ironflock", conn: &pc.ConnConfig.Config}
	if s.pool, err = pgxpool.NewWithConfig(ctx, pc); err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	if err := s.await(ctx); err != nil {
		s.pool.Close()
		return nil, err
	}
	if err := s.hold(ctx, pc.ConnConfig.Copy()); err != nil {
		s.pool.Close()
		return nil, err
	}
	if err := s.setup(ctx); err != nil {
		s.pool.Close()
		s.release()
		return nil, err
	}
	return s, nil
}

// where names the server for messages.
func (s *pgStore) where() string {
	return fmt.Sprintf("%s:%d database %q", s.conn.Host, s.conn.Port, s.conn.Database)
}

// await pings the server until it answers or cfg.Wait has passed.
func (s *pgStore) await(ctx context.Context) error {
	deadline := time.Now().Add(s.cfg.Wait)
	delay := 100 * time.Millisecond
	for {
		pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := s.pool.Ping(pctx)
		cancel()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !time.Now().Add(delay).Before(deadline) {
			if s.cfg.Wait > 0 {
				return fmt.Errorf("postgres: the server at %s did not answer within %v: %w", s.where(), s.cfg.Wait, err)
			}
			return fmt.Errorf("postgres: cannot reach the server at %s (wait for it: flockd -db-wait, platformtest.PostgresWait): %w", s.where(), err)
		}
		s.log.Info("postgres: waiting for the server", "at", s.where(), "err", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

// setup makes the store's schema with its functions and finds
// TimescaleDB.
func (s *pgStore) setup(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", s.meta); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+qi(s.meta)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, helperFunctions(qi(s.meta))); err != nil {
			return err
		}
		if err := setupKeys(ctx, tx, qi(s.meta)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, seededTable(qi(s.meta))); err != nil { // seeds.go
			return err
		}
		var icu bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu')").Scan(&icu); err != nil {
			return err
		}
		if icu {
			s.fold = `"und-x-icu"`
		}
		if s.cfg.Scratch {
			note := scratchNote + time.Now().UTC().Format(time.RFC3339)
			if _, err := tx.Exec(ctx, "COMMENT ON SCHEMA "+qi(s.meta)+" IS "+ql(note)); err != nil {
				return err
			}
		}
		var err error
		s.tsdb, err = detectTimescale(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("postgres: set up schema %s at %s: %w", s.meta, s.where(), err)
	}
	if s.cfg.Scratch {
		s.sweepScratch(ctx)
	}
	if s.tsdb == nil {
		s.log.Info("postgres: TimescaleDB is not available; time_bucket is the store's own, chunkTimeInterval makes no chunks (dropAfter drops by them all the same), columnstore is not applied", "at", s.where())
	} else {
		s.log.Info("postgres: TimescaleDB is available", "version", s.tsdb.version, "at", s.where())
	}
	return nil
}

// Close closes the pool; a scratch store first drops what it made.
func (s *pgStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.closeSQLPools()
	schemas, roles := slices.Clone(s.schemas), slices.Clone(s.roles)
	s.mu.Unlock()
	defer s.release()
	defer s.pool.Close()
	if !s.cfg.Scratch {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return s.dropSchemas(ctx, append(schemas, s.meta), roles)
}

// schemaName is the schema of a realm: realm-2-26-dev → realm_2_26_dev,
// after the prefix.
func (s *pgStore) schemaName(realm string) string {
	return s.prefix + strings.ReplaceAll(strings.ToLower(realm), "-", "_")
}

// Open makes or migrates the schema of a realm (ddl.go) and its
// transforms' views (views.go).
func (s *pgStore) Open(ctx context.Context, sc *store.Schema) (store.Tables, error) {
	t := newPGTables(s, sc)
	if err := t.migrate(ctx, false); err != nil {
		return nil, fmt.Errorf("postgres schema %s: %w", t.schema, err)
	}
	t.noteRefreshed(time.Now(), t.materialized()...) // made anew with their data
	s.mu.Lock()
	s.schemas = append(s.schemas, t.schema)
	s.mu.Unlock()
	return t, nil
}

// pgTables is the storage of one realm in its schema.
type pgTables struct {
	s      *pgStore
	sc     *store.Schema
	schema string
	tables map[string]*pgTable
	views  map[string]*store.TransformSchema

	dropOK bool // a checked migration may drop (check.go)

	mu        sync.Mutex
	reader    *pgReader            // the read-only role of direct SQL (roles.go), made on first use
	refreshed map[string]time.Time // when each materialized transform was last computed (refresh.go)
}

// pgTable is a table as the SQL of its reads and writes needs it.
type pgTable struct {
	ts   *store.TableSchema
	name string // schema-qualified and quoted
	cols []string
	// sel is the select list of every column, in schema order.
	sel string
	// insert and merge are insertSQL and mergeSQL, made once.
	insert, merge string
	// appends gathers the appends that come while others are in flight
	// (group.go).
	appends appendQueue
}

func newPGTables(s *pgStore, sc *store.Schema) *pgTables {
	t := &pgTables{s: s, sc: sc, schema: s.schemaName(sc.Realm), tables: map[string]*pgTable{}, views: map[string]*store.TransformSchema{}}
	for _, ts := range sc.Tables {
		pt := &pgTable{ts: ts, name: qi(t.schema) + "." + qi(ts.Name)}
		sel := make([]string, len(ts.Columns))
		for i, c := range ts.Columns {
			pt.cols = append(pt.cols, c.ID)
			sel[i] = qi(c.ID)
		}
		pt.sel = strings.Join(sel, ", ")
		pt.insert, pt.merge = pt.insertSQL(), pt.mergeSQL()
		t.tables[ts.Name] = pt
	}
	for _, v := range sc.Transforms {
		t.views[v.Name] = v
	}
	return t
}

// table returns a table of the schema for a call with ctx.
func (t *pgTables) table(ctx context.Context, name string) (*pgTable, error) {
	if pt := t.tables[name]; pt != nil {
		return pt, ctx.Err()
	}
	return nil, fmt.Errorf("postgres store: no table %q", name)
}

// view returns a transform of the schema.
func (t *pgTables) view(ctx context.Context, name string) (*store.TransformSchema, error) {
	if v := t.views[name]; v != nil {
		return v, ctx.Err()
	}
	return nil, fmt.Errorf("postgres store: no transform %q", name)
}

// qualified returns a schema-qualified, quoted name of the realm's schema.
func (t *pgTables) qualified(name string) string { return qi(t.schema) + "." + qi(name) }

// qi quotes an identifier.
func qi(name string) string { return pgx.Identifier{name}.Sanitize() }

// ql quotes a string literal.
func ql(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
