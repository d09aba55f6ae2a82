// This file holds the rows seam: the Rows a platform's data backends keep
// their rows in, the Tables of one realm, and what they are asked (the
// schema, the rows to append, the SQL answer). The queries are in
// rows_query.go, the filters in rows_filter.go, the series aggregates in
// rows_series.go, the column types and their values in columns.go.
//
// Above the seam, in the data service (platformtest/internal/fleetdb),
// stays everything the platform does with a row before it is stored and
// after it is read: the WAMP procedures and subscriptions, payload
// validation, storage typing, encryption of secret columns (a store keeps
// and returns ciphertext), masking, projection pruning, chunking, the
// realtime feeds, rate limits and the refusals' wire shapes. Below it, in
// a backend, is everything that depends on what is stored: appends with
// the entity rules (merge from the entity's newest row, the UNIQUE
// (entity key, tsp) constraint), row sequence and generated ids, the
// latest row per entity, and the reads: time ranges, filters, the latest
// marker, order, offset and limit, series buckets and aggregates,
// transforms. A backend receives every read as a validated, typed query,
// never "all rows", so that a database can answer it in SQL; one that
// reads rows in Go gets the reference semantics from Filter.Match and
// SeriesBuilder.
//
// What only some backends do (compute transforms from their SQL, apply
// retention, direct SQL, a ledger of seed rows, a dry run of a migration)
// is part of the seam too: a backend that does not do it answers an error
// wrapping ErrNotSupported, and the service decides what that means.
//
// Value forms: a row is a []any with one value per column of its table
// (TableSchema.Columns, in that order); nil is NULL. timestamp: int64
// epoch milliseconds; numeric: float64 (never NaN or infinite); bigint,
// device_key and id: int64; boolean: bool; string and authid: string
// (a secret column holds its ciphertext, ifsec:1:…); json: nil, bool,
// float64, string, []any or map[string]any (columns.go). A backend returns
// values in the same forms; slices it returns are read-only for the
// caller.

package store

import (
	"context"
	"errors"
	"iter"
	"time"

	"github.com/flockgo/ironflock/template"
)

// Rows keeps the rows of a platform's data backends, one Tables per
// realm. The platform's facade chooses the backend; the data service never
// asks which one it has. It is safe for concurrent use.
type Rows interface {
	// Open returns the storage of a realm's data backend, ready for s:
	// tables that do not exist yet are created, and columns that an
	// existing table lacks are added (NULL in its stored rows). A backend
	// may refuse a schema it cannot migrate to (a removed or retyped
	// column, a transform whose SQL fails) with an error that names the
	// table, column or transform, and then changes nothing. The service
	// calls Open once per realm, the first time the realm is used.
	Open(ctx context.Context, s *Schema) (Tables, error)
	// Check tells whether Open would accept s, changing nothing (a dry run
	// of the migration; allowDrop as the reconciliation allowed). A
	// backend whose Open accepts every schema answers nil.
	Check(ctx context.Context, s *Schema, allowDrop bool) error
	// Drop removes tables, and columns of tables (by table, the column
	// ids), from a realm's storage with their values: the reconciliation
	// with flockd's configuration allowed it, and calls it before the
	// realm is opened with the new schema. A table, column or realm the
	// backend does not hold is no error.
	Drop(ctx context.Context, realm string, tables []string, columns map[string][]string) error
	// DropRealm removes a realm's storage with every row, whether this
	// process opened it or not; a realm never stored is no error (the
	// platform forgets the realm).
	DropRealm(ctx context.Context, realm string) error
	// CountRows returns how many rows the backend holds over every realm
	// (the console's overview).
	CountRows(ctx context.Context) (int64, error)
	// Seeded tells whether the seed rows of a device in a table of a realm
	// were stored once already; MarkSeeded records that they were. A
	// backend that keeps no ledger answers ErrNotSupported (the facade
	// then applies the seed as it comes).
	Seeded(ctx context.Context, realm, table string, device int64) (bool, error)
	MarkSeeded(ctx context.Context, realm, table string, device int64) error
	// Place says where the rows are kept, for the console's overview ("" in
	// memory).
	Place() string
	// Close releases the backend. Nothing is called after it.
	Close() error
}

// Tables is the storage of one realm's data backend: the rows of the
// tables of its Schema and the content of its transforms. Every method
// names a table (or a transform) of the schema; the service never names
// another. Every method may fail (I/O, storage full, a lost connection):
// an error means nothing was done, never a false success. Tables is safe
// for concurrent use.
type Tables interface {
	// Append stores rows in a table, all or none, in one atomic step. It
	// returns only once they are durable where the backend promises
	// durability. It leaves each row as stored: Vals holds the values
	// after the merge, with the generated id, and Merged tells whether a
	// carried column took a stored value. For a table with an entity key,
	// a row whose key has no NULL takes every column marked in Carry from
	// the entity's newest row (by tsp, then sequence, counting rows
	// earlier in the same call), and a second row with the same key and
	// tsp (stored, or earlier in the call) fails the whole call with
	// ErrConflict. Rows with a NULL in their key are neither merged nor
	// checked. The backend gives every row its insertion sequence and
	// fills the generated id column of error-logs (1, 2, …). A backend may
	// keep the rows' Vals slices; the caller does not change them
	// afterwards.
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
	// the view's order, typed by the service (declared columns in their
	// stored forms). A backend that computes transforms itself (from
	// their SQL) refuses with an error wrapping ErrNotSupported.
	SetTransformRows(ctx context.Context, transform string, rows []map[string]any) error
	// RefreshTransform recomputes a materialized transform from its SQL (a
	// plain view is computed on every read). A backend that does not
	// compute transforms (it is given their rows, SetTransformRows)
	// answers ErrNotSupported.
	RefreshTransform(ctx context.Context, transform string) error
	// RefreshedAt returns when a materialized transform was last
	// recomputed by this process; zero when never or when the backend
	// does not compute transforms.
	RefreshedAt(transform string) time.Time
	// Maintain applies the data template's retention (dropAfter) and
	// downsampling as of now (epoch milliseconds of the platform clock).
	// A backend that keeps every row answers ErrNotSupported.
	Maintain(ctx context.Context, now int64) error
	// Notes returns what the backend accepts in the schema but does not
	// apply (a knob its server lacks), one sentence each.
	Notes() []string
	// ReaderURL returns a connection string of a role that may read the
	// realm's storage and nothing else; ErrNotSupported from a backend
	// without direct SQL.
	ReaderURL(ctx context.Context) (string, error)
	// RunSQL runs one statement as that role, in a transaction that is
	// rolled back, for at most timeout, and returns at most maxRows rows
	// and SQLMaxBytes of values; ErrSQLBusy when the realm's sessions are
	// all in use; ErrNotSupported from a backend without direct SQL.
	RunSQL(ctx context.Context, query string, maxRows int, timeout time.Duration) (*SQLResult, error)
}

// SQLMaxBytes bounds the answer RunSQL reads (the values' bytes as
// text): 4 MiB.
const SQLMaxBytes = 4 << 20

// ErrSQLBusy is the answer of a statement that found no free session of
// its realm's SQL pool.
var ErrSQLBusy = errors.New("busy: the realm's SQL sessions are all in use; try again in a moment")

// ErrSchemaChanged refuses a write made through a realm's Tables after the
// realm was opened again with a changed schema (a data template
// migration): the caller writes again through the new Tables.
var ErrSchemaChanged = errors.New("the table's columns changed (a data template migration); write again")

// ErrTooManyGroups: a series read has more answer rows than
// SeriesQuery.MaxGroups.
var ErrTooManyGroups = errors.New("too many series rows")

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
