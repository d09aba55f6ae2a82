// This file holds the appends of the PostgreSQL store (postgres.go), as
// store.Tables.Append says, with the entity rules in SQL. It serves no URI.
//
// One round trip per write, all or none (a write holds the appends to a
// table waiting at the same time: group.go):
//
//   - one row that merges nothing: one INSERT (RETURNING the generated id
//     of error-logs);
//   - rows of a table without entity key or generated id: one COPY (pgx's
//     CopyFrom), atomic on its own;
//   - anything else (a table with an entity key, error-logs): one pgx
//     batch, which the server runs in one implicit transaction: per row an
//     INSERT, for a row whose entity key has no NULL one that takes the
//     carried columns from the entity's newest row (by tsp, then _seq) in
//     the same statement and returns them. Earlier statements of the batch
//     are visible to later ones, so a row sees the rows before it in the
//     same append. Appends that merge take a transaction-scoped advisory
//     lock on the table first, so that two of them never read the same
//     newest row.
//
// The UNIQUE (entity key, tsp) constraint answers a second row with the
// same key and tsp (23505), which the store reports as store.ErrConflict.

package postgres

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// The range of timestamptz in epoch milliseconds: 4713 BC to 294276 AD.
const (
	pgMinMs = store.SQLMinMs
	pgMaxMs = store.SQLMaxMs
)

// pgUniqueViolation is the SQLSTATE of a UNIQUE constraint's refusal.
const pgUniqueViolation = "23505"

// Append stores rows as store.Tables.Append says, in one write with the
// appends to the same table waiting at the same time (group.go).
func (t *pgTables) Append(ctx context.Context, table string, rows []*store.NewRow) error {
	pt, err := t.table(ctx, table)
	if err != nil {
		return err
	}
	if len(rows) == 0 {
		return nil
	}
	c := &appendCall{ctx: ctx, rows: rows, args: make([][]any, len(rows))}
	for n, nr := range rows {
		nr.Merged = false
		if c.args[n], err = pt.args(nr.Vals); err != nil {
			return err
		}
		c.merges = c.merges || pt.complete(nr.Vals)
	}
	return t.appendGrouped(pt, c)
}

// write stores rows, whose driver values are args, in one round trip, all
// or none; merges tells that a row is merged (complete).
func (t *pgTables) write(ctx context.Context, pt *pgTable, rows []*store.NewRow, args [][]any, merges bool) error {
	ts := pt.ts
	switch {
	case len(rows) == 1 && !merges:
		return t.insertOne(ctx, pt, rows[0], args[0])
	case !merges && ts.ID < 0 && len(ts.EntityKey) == 0:
		_, err := t.s.pool.CopyFrom(ctx, pgx.Identifier{t.schema, ts.Name}, pt.insertCols(), pgx.CopyFromRows(args))
		return err
	default:
		return t.insertBatch(ctx, pt, rows, args, merges)
	}
}

// complete reports a row of a table with an entity key whose key holds
// no NULL: it is merged and checked for conflicts.
func (pt *pgTable) complete(vals []any) bool {
	for _, k := range pt.ts.EntityKey {
		if vals[k] == nil {
			return false
		}
	}
	return len(pt.ts.EntityKey) > 0
}

// insertCols returns the columns an INSERT names: all but the generated id.
func (pt *pgTable) insertCols() []string {
	cols := make([]string, 0, len(pt.cols))
	for i, c := range pt.cols {
		if i != pt.ts.ID {
			cols = append(cols, c)
		}
	}
	return cols
}

// args converts the stored values of a row (but the generated id) to
// driver values.
func (pt *pgTable) args(vals []any) ([]any, error) {
	out := make([]any, 0, len(vals))
	for i, v := range vals {
		if i == pt.ts.ID {
			continue
		}
		a, err := pgArg(pt.ts.Columns[i].Type, v)
		if err != nil {
			return nil, fmt.Errorf("column %q: %w", pt.cols[i], err)
		}
		out = append(out, a)
	}
	return out, nil
}

// pgArg converts a stored value to what the driver sends for a column of
// type typ.
func pgArg(typ template.DataType, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	return store.TypeOf(typ).SQLArg(v)
}

// insertSQL is the INSERT of one row, returning the generated id of
// error-logs.
func (pt *pgTable) insertSQL() string {
	cols := pt.insertCols()
	names := make([]string, len(cols))
	params := make([]string, len(cols))
	for i, c := range cols {
		names[i] = qi(c)
		params[i] = "$" + strconv.Itoa(i+1)
	}
	q := "INSERT INTO " + pt.name + " (" + strings.Join(names, ", ") + ") VALUES (" + strings.Join(params, ", ") + ")"
	if pt.ts.ID >= 0 {
		q += " RETURNING " + qi(pt.cols[pt.ts.ID])
	}
	return q
}

// insertOne stores one row that merges nothing.
func (t *pgTables) insertOne(ctx context.Context, pt *pgTable, nr *store.NewRow, args []any) error {
	if pt.ts.ID < 0 {
		_, err := t.s.pool.Exec(ctx, pt.insert, args...)
		return err
	}
	var id int64
	if err := t.s.pool.QueryRow(ctx, pt.insert, args...).Scan(&id); err != nil {
		return err
	}
	nr.Vals[pt.ts.ID] = id
	return nil
}

// carried reports whether column i can take the entity's stored value.
func (pt *pgTable) carried(i int) bool {
	c := pt.ts.Columns[i]
	return !c.Implicit && i != pt.ts.TSP
}

// mergeSQL is the INSERT of a row whose entity key has no NULL. Its
// parameters are the entity key's values, the row's values (as
// insertSQL's), then one boolean per carryable column: take the column
// from the entity's newest row. It returns that row's carryable columns,
// or no row when the entity has none.
func (pt *pgTable) mergeSQL() string {
	ts := pt.ts
	var keys, prevCols, names, values []string
	for n, k := range ts.EntityKey {
		keys = append(keys, qi(pt.cols[k])+" = $"+strconv.Itoa(n+1))
	}
	first := len(ts.EntityKey) + len(pt.insertCols()) // before the first boolean
	for i, c := range pt.cols {
		if i == ts.ID {
			continue
		}
		names = append(names, qi(c))
		v := "$" + strconv.Itoa(len(ts.EntityKey)+len(values)+1) + "::" + pgType(ts.Columns[i].Type)
		if pt.carried(i) {
			prevCols = append(prevCols, qi(c))
			v = "CASE WHEN $" + strconv.Itoa(first+len(prevCols)) + "::boolean THEN prev." + qi(c) + " ELSE " + v + " END"
		}
		values = append(values, v)
	}
	return "WITH prev AS (SELECT " + strings.Join(prevCols, ", ") + " FROM " + pt.name +
		" WHERE " + strings.Join(keys, " AND ") + " ORDER BY tsp DESC, " + qi(seqColumn) + " DESC LIMIT 1), " +
		"ins AS (INSERT INTO " + pt.name + " (" + strings.Join(names, ", ") + ") SELECT " + strings.Join(values, ", ") +
		" FROM (VALUES (1)) AS one (x) LEFT JOIN prev ON true) SELECT " + strings.Join(prevCols, ", ") + " FROM prev"
}

// insertBatch stores rows in one batch: one implicit transaction.
func (t *pgTables) insertBatch(ctx context.Context, pt *pgTable, rows []*store.NewRow, args [][]any, merges bool) error {
	b := &pgx.Batch{}
	if merges {
		h := fnv.New32a()
		_, _ = h.Write([]byte(pt.name))
		b.Queue("SELECT pg_advisory_xact_lock($1::int4, 0)", int32(h.Sum32()))
	}
	insert, merge := pt.insert, pt.merge
	var prevCols []int
	for i := range pt.cols {
		if pt.carried(i) {
			prevCols = append(prevCols, i)
		}
	}
	for n, nr := range rows {
		switch {
		case pt.complete(nr.Vals):
			params := make([]any, 0, len(pt.ts.EntityKey)+2*len(pt.cols))
			for _, k := range pt.ts.EntityKey {
				a, _ := pgArg(pt.ts.Columns[k].Type, nr.Vals[k])
				params = append(params, a)
			}
			params = append(params, args[n]...)
			anyCarry := false
			for _, i := range prevCols {
				carry := i < len(nr.Carry) && nr.Carry[i]
				anyCarry = anyCarry || carry
				params = append(params, carry)
			}
			b.Queue(merge, params...).Query(func(r pgx.Rows) error {
				for r.Next() {
					vs, err := r.Values()
					if err != nil {
						return err
					}
					for j, i := range prevCols {
						if i < len(nr.Carry) && nr.Carry[i] {
							if nr.Vals[i], err = storedValue(pt.ts.Columns[i].Type, vs[j]); err != nil {
								return err
							}
						}
					}
					nr.Merged = anyCarry
				}
				return r.Err()
			})
		case pt.ts.ID >= 0:
			b.Queue(insert, args[n]...).QueryRow(func(r pgx.Row) error {
				var id int64
				err := r.Scan(&id)
				nr.Vals[pt.ts.ID] = id
				return err
			})
		default:
			b.Queue(insert, args[n]...)
		}
	}
	return t.s.pool.SendBatch(ctx, b).Close()
}

// writeError reports a conflict with the entity key as store.ErrConflict, and
// a write whose answer was lost as store.ErrOutcomeUnknown.
func (pt *pgTable) writeError(err error) error {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == pgUniqueViolation && pe.ConstraintName == objName(pt.ts.Name, "_entity") {
		return fmt.Errorf("table %q: %w (%s)", pt.ts.Name, store.ErrConflict, pe.Message)
	}
	if answerLost(err) {
		return fmt.Errorf("table %q: %w: %w", pt.ts.Name, store.ErrOutcomeUnknown, err)
	}
	return err
}

// answerLost reports an error of a write that may have been committed
// all the same: the statement (an implicit transaction, committed before
// the server answers) reached the server and its answer did not come
// back whole. That is any failure after pgx sent a byte (a connection
// that ended, an I/O error, a context ended mid-call), and the server's
// own errors of a connection that ends (class 08, 57P: shutdown,
// termination) or of I/O (class 58, e.g. 58030 io_error at commit). A
// failure before anything was sent (a refused connection, a context
// ended before the call, pgconn.SafeToRetry) and every other error of
// the server (the statement failed) are refusals.
func answerLost(err error) bool {
	if err == nil {
		return false
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P") || strings.HasPrefix(pe.Code, "58")
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return false
	}
	return !pgconn.SafeToRetry(err)
}
