// This file holds the storage seam of the data backend: the Store that
// keeps the rows of a platform's data backends, the Tables of one realm,
// the schema they are opened with, the rows they take and give, and the
// errors they report. It serves no URI.
//
// Above the seam, in this package, stays everything the platform does
// with a row before it is stored and after it is read: the WAMP
// procedures and subscriptions, payload validation, storage typing,
// encryption of secret columns (a store keeps and returns ciphertext),
// masking, projection pruning (columnPaths), chunking, the realtime
// feeds, rate limits and the refusals' wire shapes. Below it, in a Store,
// is everything that depends on what is stored: appends with the entity
// rules (merge from the entity's newest row, the UNIQUE (entity key, tsp)
// constraint), row sequence and generated ids, the latest row per
// entity, and the reads: time ranges, filters, the latest marker, order,
// offset and limit, series buckets and aggregates, transforms. A store
// receives every read as a validated, typed query (query.go, filter.go),
// never "all rows", so that a database can answer it in SQL.
//
// Implementations: in memory (memstore.go, the default), in the data
// folder's fleet.db (boltstore.go, platformtest.WithDataDir) and
// PostgreSQL (pgstore.go; it also computes transforms and applies
// retention, Maintainer, and gives direct SQL access, SQLAccess). A store
// that reads rows in Go gets the reference semantics from Filter.Match and
// SeriesBuilder.
//
// Value forms: a row is a []any with one value per column of its table
// (TableSchema.Columns, in that order); nil is NULL. timestamp: int64
// epoch milliseconds; numeric: float64 (never NaN or infinite); bigint,
// device_key and id: int64; boolean: bool; string and authid: string
// (a secret column holds its ciphertext, ifsec:1:…); json: nil, bool,
// float64, string, []any or map[string]any. A store returns values in the
// same forms; slices it returns are read-only for the caller.

package fleetdb

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/flockgo/ironflock/template"
)

// Store keeps the rows of a platform's data backends, one Tables per
// realm. The platform's facade chooses it (platformtest: in memory by
// default); the DB never asks which one it has. It is safe for concurrent
// use.
type Store interface {
	// Open returns the storage of a realm's data backend, ready for s:
	// tables that do not exist yet are created, and columns that an
	// existing table lacks are added (NULL in its stored rows). A store
	// may refuse a schema it cannot migrate to (a removed or retyped
	// column) with an error that names the table and column. The DB calls
	// Open once per realm, the first time the realm is used.
	Open(ctx context.Context, s *Schema) (Tables, error)
	// Close releases the store. Nothing is called after it.
	Close() error
}

// Tables is the storage of one realm's data backend: the rows of the
// tables of its Schema and the content of its transforms. Every method
// names a table (or a transform) of the schema; the DB never names
// another. Every method may fail (I/O, storage full, a lost connection):
// an error means nothing was done, never a false success. Tables is safe
// for concurrent use.
type Tables interface {
	// Append stores rows in a table, all or none, in one atomic step. It
	// returns only once they are durable where the store promises
	// durability. It leaves each row as stored: Vals holds the values
	// after the merge, with the generated id, and Merged tells whether a
	// carried column took a stored value. For a table with an entity key,
	// a row whose key has no NULL takes every column marked in Carry from
	// the entity's newest row (by tsp, then sequence, counting rows
	// earlier in the same call), and a second row with the same key and
	// tsp (stored, or earlier in the call) fails the whole call with
	// ErrConflict. Rows with a NULL in their key are neither merged nor
	// checked. The store gives every row its insertion sequence and fills
	// the generated id column of error-logs (1, 2, …). A store may keep the
	// rows' Vals slices; the caller does not change them afterwards.
	Append(ctx context.Context, table string, rows []*NewRow) error
	// Read returns the rows a ReadQuery selects, newest first.
	Read(ctx context.Context, table string, q *ReadQuery) ([][]any, error)
	// Series returns the groups of a SeriesQuery, in any order.
	Series(ctx context.Context, table string, q *SeriesQuery) ([]SeriesGroup, error)
	// Scan yields every row of a table oldest first, by (tsp, sequence);
	// a failure is yielded once, last.
	Scan(ctx context.Context, table string) iter.Seq2[[]any, error]
	// Count returns how many rows a table holds.
	Count(ctx context.Context, table string) (int64, error)
	// Span returns the tsp of the oldest and of the newest row of a
	// table; ok is false for an empty table.
	Span(ctx context.Context, table string) (oldest, newest int64, ok bool, err error)
	// ReadTransform returns the rows of a transform a TransformQuery
	// selects, in the view's order: declared columns in their stored
	// forms, other columns as the view gives them.
	ReadTransform(ctx context.Context, transform string, q *TransformQuery) ([]map[string]any, error)
	// SetTransformRows replaces the content of a transform with rows, in
	// the view's order, typed by the DB (declared columns in their stored
	// forms). A store that computes transforms itself (from their SQL)
	// refuses with an error wrapping ErrNotSupported.
	SetTransformRows(ctx context.Context, transform string, rows []map[string]any) error
}

// Dropper is implemented by a store whose realms outlive the DB's
// backends (the memory store for the life of the platform, the data
// folder's across restarts): the reconciliation with flockd's
// configuration drops through it what a changed data template removes,
// before the realm is opened with the new schema (Open adds what it
// adds). The DB asks for the capability (Migrate, realm.Migrator); a
// store without it applies its own rule at Open.
type Dropper interface {
	// Drop removes tables, and columns of tables (by table, the column
	// ids), from a realm's storage with their values: the reconciliation
	// allowed it. A table, column or realm the store does not hold is no
	// error.
	Drop(ctx context.Context, realm string, tables []string, columns map[string][]string) error
}

// RowCounter is implemented by a store that counts the rows it holds over
// every realm at little cost (the console's overview).
type RowCounter interface {
	Rows(ctx context.Context) (int64, error)
}

// Maintainer is implemented by the Tables of a store that computes
// transforms from their SQL and applies the data template's retention
// (dropAfter) and downsampling itself (the PostgreSQL store). The DB
// calls it on the schedules (schedule.go): a transform's refresh on its
// cron schedule, the maintenance once when the realm's storage opens and
// hourly after. The DB asks for the capability, not for a kind of store:
// a store without it keeps every row and is given its transforms' rows
// (SetTransformRows).
type Maintainer interface {
	// RefreshTransform recomputes a materialized transform (a plain view
	// is computed on every read).
	RefreshTransform(ctx context.Context, transform string) error
	// Maintain applies retention and downsampling as of now (epoch
	// milliseconds of the platform clock).
	Maintain(ctx context.Context, now int64) error
	// Notes returns what the store accepts in the schema but does not
	// apply (a knob its server lacks), one sentence each.
	Notes() []string
}

// SQLAccess is implemented by the Tables of a store that gives read-only
// SQL access to a realm's storage (the PostgreSQL store): the connection
// strings flockd prints and the console's SQL page.
type SQLAccess interface {
	// ReaderURL returns a connection string of a role that may read the
	// realm's storage and nothing else.
	ReaderURL(ctx context.Context) (string, error)
	// RunSQL runs one statement as that role, in a transaction that is
	// rolled back, for at most timeout, and returns at most maxRows rows
	// and SQLMaxBytes of values; ErrSQLBusy when the realm's sessions are
	// all in use.
	RunSQL(ctx context.Context, query string, maxRows int, timeout time.Duration) (*SQLResult, error)
}

// RealmDropper is implemented by a store that keeps realms beyond the
// DB's backends (the memory store, the data folder's, PostgreSQL):
// DropRealm removes a realm's storage with every row, whether this process
// opened it or not; a realm it never stored is no error. The DB calls it
// when the platform forgets a realm (Forget).
type RealmDropper interface {
	DropRealm(ctx context.Context, realm string) error
}

// SQLResult is the answer of a direct SQL query: its columns and rows as
// text (NULL as nil), at most the row limit.
type SQLResult struct {
	Columns []string
	Rows    [][]*string
	// Truncated says the query had more rows than the limit, or more
	// bytes than SQLMaxBytes (then BytesCut is set too).
	Truncated bool
	BytesCut  bool
}

// Schema is what one realm's data backend stores, derived from its app's
// data template.
type Schema struct {
	// Realm is the realm, realm-<S>-<A>-<stage>.
	Realm string
	// Tables are the declared tables in template order, then error-logs.
	Tables []*TableSchema
	// Transforms are the declared transforms in template order.
	Transforms []*TransformSchema
}

// TableSchema is a table as stored: its columns in the order of row
// values, and the indexes of the columns the rules need.
type TableSchema struct {
	Name string
	// Private tables are not readable by cross-app readers; System is
	// error-logs.
	Private, System bool
	// Columns are the declared columns in template order, then the
	// implicit ones (device_key, authid, and id for error-logs).
	Columns []Column
	// EntityKey holds the indexes of the maintainLatestFlagFor columns;
	// empty without an entity key.
	EntityKey []int
	// TSP, DeviceKey and AuthID are column indexes; ID is the index of
	// the generated id of error-logs, -1 elsewhere.
	TSP, DeviceKey, AuthID, ID int
	// Def is the template's declaration (retention, downsampling, chunk
	// interval, for stores that apply them).
	Def *template.Table
}

// TransformSchema is a transform: its declared columns (filters use only
// these) and its declaration (the SQL, materialization and schedule).
type TransformSchema struct {
	Name    string
	Private bool
	Columns []Column
	Def     *template.Transform
}

// Column is a stored column.
type Column struct {
	ID     string
	Type   template.DataType
	Secret bool // the value is ciphertext
	// Implicit columns are the platform's: device_key, authid, id.
	Implicit bool
}

// NewRow is a row to append: a value per column in stored form, and the
// columns that take the value of the entity's newest row (Carry[i]: the
// write did not carry column i, or carried the secret placeholder that
// keeps the stored secret). Carry may be nil; it only matters for a table
// with an entity key and a row whose key has no NULL. Append sets Vals to
// the stored values and Merged.
type NewRow struct {
	Vals   []any
	Carry  []bool
	Merged bool // set by Append: at least one carried column took a stored value
}

// The errors a store reports for what the platform answers with a
// refusal. Stores wrap them (fmt.Errorf("…: %w", ErrConflict)).
var (
	// ErrConflict: a row with the same entity key and tsp is stored, or
	// comes earlier in the same append.
	ErrConflict = errors.New("a row with this entity key and tsp exists")
	// ErrStorageFull: the write does not fit (a full disk, a store's row
	// or byte bound). Reads still work.
	ErrStorageFull = errors.New("storage full")
	// ErrOutcomeUnknown: the write reached the storage but its answer
	// did not come back (the connection ended, an I/O error at commit):
	// the rows may be stored or not. Never answered as a refusal.
	ErrOutcomeUnknown = errors.New("the outcome of the write is unknown")
	// ErrTooManyGroups: a series read has more answer rows than
	// SeriesQuery.MaxGroups.
	ErrTooManyGroups = errors.New("too many series rows")
	// ErrNotSupported: the store does not do this (SetTransformRows on a
	// store that computes transforms).
	ErrNotSupported = errors.New("not supported by this store")
)

// SQLError is a failure a store reports with a PostgreSQL error code
// (SQLSTATE), which the platform answers as runtime_error
// [{name, severity, code}]. Any error with a SQLState method is answered
// that way (pgconn.PgError has one).
type SQLError struct {
	Code string // SQLSTATE, e.g. 22P02
	Msg  string
}

func (e *SQLError) Error() string { return e.Msg + " (SQLSTATE " + e.Code + ")" }

// SQLState returns the error code.
func (e *SQLError) SQLState() string { return e.Code }
