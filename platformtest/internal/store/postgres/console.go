// This file holds the console's SQL statements on the PostgreSQL store
// (SQLAccess.RunSQL): each runs as the realm's read-only role, in a
// read-only transaction that is always rolled back (nothing it does
// stays, whatever it is), on a small pool of its own per realm (at most
// SQLPoolConns sessions, so that the page cannot use up the server's
// connection slots), and reads at most store.SQLMaxBytes of answer (so that
// one statement cannot fill flockd's memory).

package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// The bounds of the console's SQL statements.
const (
	// SQLPoolConns is how many sessions one realm's SQL statements may hold
	// at once; more wait up to SQLAcquireWait, then are answered busy.
	SQLPoolConns = 2
	// SQLAcquireWait is how long a statement waits for a session.
	SQLAcquireWait = 2 * time.Second
)

// consolePool returns the realm's pool of SQL sessions, made on first
// use.
func (t *pgTables) consolePool(ctx context.Context) (*pgxpool.Pool, error) {
	r, err := t.ensureReader(ctx)
	if err != nil {
		return nil, err
	}
	t.s.mu.Lock()
	defer t.s.mu.Unlock()
	if t.s.closed {
		return nil, fmt.Errorf("postgres: the store is closed")
	}
	if p := t.s.sqlPools[t.schema]; p != nil {
		return p, nil
	}
	cfg, err := pgxpool.ParseConfig(t.s.cfg.URL)
	if err != nil {
		return nil, err
	}
	cc := cfg.ConnConfig
	cc.User, cc.Password = r.role, r.password
	cc.RuntimeParams["application_name"] = "ironflock console"
	cc.RuntimeParams["default_transaction_read_only"] = "on"
	cc.RuntimeParams["search_path"] = t.searchPath()
	cc.RuntimeParams["timezone"] = "UTC"
	// A single value larger than the cap fails the statement instead of
	// being read into memory.
	cc.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(store.SQLMaxBytes + 64<<10)
		return f
	}
	cfg.MaxConns, cfg.MinConns = SQLPoolConns, 0
	cfg.MaxConnIdleTime = time.Minute
	p, err := pgxpool.NewWithConfig(context.WithoutCancel(ctx), cfg)
	if err != nil {
		return nil, fmt.Errorf("connect as %s: %w", r.role, err)
	}
	if t.s.sqlPools == nil {
		t.s.sqlPools = map[string]*pgxpool.Pool{}
	}
	t.s.sqlPools[t.schema] = p
	return p, nil
}

// closeSQLPools closes the console's pools. The caller holds s.mu.
func (s *pgStore) closeSQLPools() {
	for name, p := range s.sqlPools {
		p.Close()
		delete(s.sqlPools, name)
	}
}

// RunSQL runs one statement as the realm's read-only role, in the realm's
// schema, in a read-only transaction that is rolled back, for at most
// timeout (statement_timeout), and returns at most maxRows rows and
// store.SQLMaxBytes of values. With no free session within SQLAcquireWait it
// fails with store.ErrSQLBusy.
func (t *pgTables) RunSQL(ctx context.Context, query string, maxRows int, timeout time.Duration) (*store.SQLResult, error) {
	pool, err := t.consolePool(ctx)
	if err != nil {
		return nil, err
	}
	actx, cancel := context.WithTimeout(ctx, SQLAcquireWait)
	conn, err := pool.Acquire(actx)
	cancel()
	if err != nil {
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, store.ErrSQLBusy
		}
		return nil, err
	}
	defer conn.Release()
	qctx, stop := context.WithCancel(ctx)
	defer stop()
	tx, err := conn.BeginTx(qctx, pgx.TxOptions{AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, err
	}
	// Rolled back whatever happens: a statement that changed anything
	// (a setting, a temporary table, a large object) leaves nothing.
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	ms := strconv.FormatInt(max(timeout.Milliseconds(), 1), 10)
	if _, err := tx.Exec(qctx, "SET LOCAL statement_timeout = "+ms); err != nil {
		return nil, err
	}
	// QueryExecModeExec: one statement, never a list of them.
	rows, err := tx.Query(qctx, query, pgx.QueryExecModeExec)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	res := &store.SQLResult{}
	for _, fd := range rows.FieldDescriptions() {
		res.Columns = append(res.Columns, fd.Name)
	}
	read := 0
	for rows.Next() {
		if len(res.Rows) == maxRows {
			res.Truncated = true
			break
		}
		for _, v := range rows.RawValues() {
			read += len(v)
		}
		if read > store.SQLMaxBytes {
			res.Truncated, res.BytesCut = true, true
			break
		}
		vs, err := rows.Values()
		if err != nil {
			return nil, err
		}
		row := make([]*string, len(vs))
		for i, v := range vs {
			row[i] = sqlText(v)
		}
		res.Rows = append(res.Rows, row)
	}
	if res.Truncated {
		// Stop the statement rather than read the rest of its answer: the
		// session is then dropped by the pool, and its transaction with it.
		stop()
		return res, nil
	}
	rows.Close()
	return res, rows.Err()
}
