// This file times the PostgreSQL store's statements for flockd's metrics
// through pgx's tracer interfaces (QueryTracer for Query, QueryRow and
// Exec, BatchTracer for a batch as a whole, CopyFromTracer for COPY),
// set in the pool's connection config: a histogram of durations and a
// count of failures, labelled by the statement's first keyword (select,
// insert, …; batch, copy), so that the series never grow with the data.

package postgres

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/metrics"
)

// pgTracer records the duration and the failures of statements.
type pgTracer struct {
	lat  *metrics.Vec[*metrics.Histogram]
	errs *metrics.Vec[*metrics.Counter]
}

// newPGTracer registers the store's metrics in reg; nil when reg is nil.
func newPGTracer(reg *metrics.Registry) *pgTracer {
	if reg == nil {
		return nil
	}
	return &pgTracer{
		lat: reg.HistogramVec("flockd_postgres_query_duration_seconds",
			"Duration of the data backends' PostgreSQL statements by their first keyword (batch: a batch as a whole; copy: COPY FROM).",
			nil, "op"),
		errs: reg.CounterVec("flockd_postgres_query_errors_total",
			"PostgreSQL statements of the data backends that failed, by their first keyword.", "op"),
	}
}

// traceKey keys a statement's start in its context.
type traceKey struct{}

// traceStart is when a statement started and its keyword.
type traceStart struct {
	at time.Time
	op string
}

func (t *pgTracer) start(ctx context.Context, op string) context.Context {
	return context.WithValue(ctx, traceKey{}, traceStart{at: time.Now(), op: op})
}

func (t *pgTracer) end(ctx context.Context, err error) {
	st, ok := ctx.Value(traceKey{}).(traceStart)
	if !ok {
		return
	}
	t.lat.With(st.op).ObserveDuration(time.Since(st.at))
	if err != nil {
		t.errs.With(st.op).Inc()
	}
}

// TraceQueryStart implements pgx.QueryTracer.
func (t *pgTracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	return t.start(ctx, sqlOp(data.SQL))
}

// TraceQueryEnd implements pgx.QueryTracer.
func (t *pgTracer) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryEndData) {
	t.end(ctx, data.Err)
}

// TraceBatchStart implements pgx.BatchTracer.
func (t *pgTracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return t.start(ctx, "batch")
}

// TraceBatchQuery implements pgx.BatchTracer: the batch is timed whole.
func (t *pgTracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (t *pgTracer) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceBatchEndData) {
	t.end(ctx, data.Err)
}

// TraceCopyFromStart implements pgx.CopyFromTracer.
func (t *pgTracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return t.start(ctx, "copy")
}

// TraceCopyFromEnd implements pgx.CopyFromTracer.
func (t *pgTracer) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, data pgx.TraceCopyFromEndData) {
	t.end(ctx, data.Err)
}

// sqlOps are the keywords a statement is labelled with; any other is
// "other".
var sqlOps = map[string]bool{"select": true, "insert": true, "update": true, "delete": true, "with": true,
	"create": true, "alter": true, "drop": true, "do": true, "grant": true, "revoke": true, "refresh": true,
	"call": true, "truncate": true, "set": true, "begin": true, "commit": true, "rollback": true, "lock": true,
	"comment": true, "analyze": true, "vacuum": true, "show": true, "savepoint": true, "release": true}

// sqlOp returns the lower-case first keyword of sql, past spaces and
// comments, or "other".
func sqlOp(sql string) string {
	for {
		sql = strings.TrimLeft(sql, " \t\r\n(")
		switch {
		case strings.HasPrefix(sql, "--"):
			i := strings.IndexByte(sql, '\n')
			if i < 0 {
				return "other"
			}
			sql = sql[i+1:]
			continue
		case strings.HasPrefix(sql, "/*"):
			i := strings.Index(sql, "*/")
			if i < 0 {
				return "other"
			}
			sql = sql[i+2:]
			continue
		}
		break
	}
	end := 0
	for end < len(sql) && end < 12 && (sql[end]|0x20 >= 'a' && sql[end]|0x20 <= 'z') {
		end++
	}
	op := strings.ToLower(sql[:end])
	if sqlOps[op] {
		return op
	}
	return "other"
}
