// This file holds history reads: Row, DecodeRows, Query, GetHistory, and
// the reassembly of chunked answers.

package client

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// Row is one table row as the platform returns it: column name to value.
// Rows always carry tsp (an ISO 8601 text; a platform that sends epoch
// milliseconds is read as well), device_key and authid.
type Row map[string]any

// Decode decodes the row into v (a struct with json tags, typically), with
// the rules of Decode; tsp decodes into a time.Time.
func (r Row) Decode(v any) error { return DecodeInto(map[string]any(r), v) }

// DecodeRows decodes rows into a slice of T.
func DecodeRows[T any](rows []Row) ([]T, error) {
	out := make([]T, len(rows))
	for i, r := range rows {
		if err := r.Decode(&out[i]); err != nil {
			return nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	return out, nil
}

// Limits of history queries.
const (
	DefaultHistoryLimit = 10
	MaxHistoryLimit     = 10000
)

// maxOffset is the largest offset the data backend accepts (a uint32).
const maxOffset int64 = math.MaxUint32

// Query selects rows for GetHistory.
type Query struct {
	// Limit is the number of rows, 1–10000; 0 means the default, 10.
	Limit int
	// Offset skips the newest Offset rows, 0–4294967295 (an int64, so that
	// the whole range is available on 32-bit devices too).
	Offset int64
	// TimeRange bounds tsp; nil means all time.
	TimeRange *TimeRange
	// FilterAnd holds conditions that must all hold, and the latest marker.
	FilterAnd []Filter
	// Columns to return; tsp, device_key and authid always come back. Nil
	// means all columns.
	Columns []string
	// ColumnPaths prunes json columns listed in Columns to these paths
	// (e.g. "payload.sensor.value").
	ColumnPaths []string
}

// wire builds the payload; optional fields are omitted, never null.
func (q *Query) wire(op, table string, maxLimit int, warn func(string)) (map[string]any, error) {
	if q == nil {
		q = &Query{}
	}
	limit := q.Limit
	if limit == 0 {
		limit = DefaultHistoryLimit
	}
	if limit < 1 || limit > maxLimit {
		return nil, invalidArg(op, "limit", "limit %d is outside 1…%d", q.Limit, maxLimit)
	}
	if q.Offset < 0 || q.Offset > maxOffset {
		return nil, invalidArg(op, "offset", "offset %d is outside 0…%d", q.Offset, maxOffset)
	}
	p := map[string]any{"limit": int64(limit), "offset": int64(q.Offset)}
	if q.TimeRange != nil {
		tr, err := q.TimeRange.wire("timeRange")
		if err != nil {
			return nil, invalidArg(op, "timeRange", "%v", err)
		}
		p["timeRange"] = tr
	}
	if len(q.FilterAnd) > 0 {
		nodes, err := filterNodes(q.FilterAnd, warn)
		if err != nil {
			return nil, invalidArg(op, "filterAnd", "%v", err)
		}
		p["filterAnd"] = nodes
	}
	if q.Columns != nil {
		cols, err := nameList(q.Columns, "columns")
		if err != nil {
			return nil, invalidArg(op, "columns", "%v", err)
		}
		p["columns"] = cols
	}
	if q.ColumnPaths != nil {
		paths, err := nameList(q.ColumnPaths, "columnPaths")
		if err != nil {
			return nil, invalidArg(op, "columnPaths", "%v", err)
		}
		p["columnPaths"] = paths
	}
	return p, nil
}

func filterNodes(filters []Filter, warn func(string)) ([]any, error) {
	nodes := make([]any, len(filters))
	for i, f := range filters {
		n, err := f.wire(fmt.Sprintf("filterAnd[%d]", i), warn)
		if err != nil {
			return nil, err
		}
		nodes[i] = n
	}
	return nodes, nil
}

func nameList(names []string, field string) ([]any, error) {
	out := make([]any, len(names))
	for i, n := range names {
		if strings.TrimSpace(n) == "" {
			return nil, fmt.Errorf("%s[%d] is blank", field, i)
		}
		out[i] = n
	}
	return out, nil
}

// GetHistory reads rows of a table or transform of the app: the newest
// Limit rows after Offset that match, in ascending tsp order. A nil query
// reads the 10 newest rows. Large results the data backend sends in chunks
// are reassembled. A table the app's data template does not declare fails
// with ErrUnknownTable.
func (c *Client) GetHistory(ctx context.Context, table string, q *Query) ([]Row, error) {
	const op = "GetHistory"
	if err := checkReadTable(op, table); err != nil {
		return nil, err
	}
	payload, err := q.wire(op, table, MaxHistoryLimit, c.warnFunc(op, table))
	if err != nil {
		return nil, err
	}
	return c.readRows(ctx, op, table, wire.HistoryProc(table), payload)
}

func (c *Client) warnFunc(op, table string) func(string) {
	return func(msg string) { c.log.Warn("ironflock: "+op+": "+msg, "table", table) }
}

// readRows calls a read procedure asking for progressive results and
// returns the reassembled rows.
func (c *Client) readRows(ctx context.Context, op, table, uri string, payload map[string]any) ([]Row, error) {
	var chunks []*Result
	cs := callSettings{progress: func(r *Result) { chunks = append(chunks, r) }}
	res, err := c.tableCall(ctx, op, table, uri, []any{payload}, nil, cs)
	if err != nil {
		return nil, opErr(op, uri, err)
	}
	rows, err := assembleRows(res, chunks)
	return rows, opErr(op, uri, err)
}

// assembleRows turns a read answer into rows (docs/wire.md §7.6): a plain list,
// or chunks [index, rows] followed by a summary {chunked, chunkCount,
// totalRows, order}, ordered by index, concatenated and reversed for "asc".
func assembleRows(final *Result, chunks []*Result) ([]Row, error) {
	var summary map[string]any
	if len(final.Args) > 0 {
		summary, _ = final.Args[0].(map[string]any)
	}
	if chunked, _ := summary["chunked"].(bool); !chunked {
		if len(chunks) > 0 {
			return nil, fmt.Errorf("unexpected result: %d progressive results without a chunked summary", len(chunks))
		}
		if len(final.Args) == 0 || final.Args[0] == nil {
			return []Row{}, nil
		}
		list, ok := final.Args[0].([]any)
		if !ok {
			return nil, fmt.Errorf("unexpected result: want a list of rows, got %T", final.Args[0])
		}
		return toRows(list)
	}
	count, ok1 := wholeNumber(summary["chunkCount"])
	total, ok2 := wholeNumber(summary["totalRows"])
	if !ok1 || !ok2 {
		return nil, fmt.Errorf("unexpected result: bad chunk summary %v", summary)
	}
	order, _ := summary["order"].(string)
	if order != "asc" && order != "desc" {
		return nil, fmt.Errorf("unexpected result: unknown chunk order %q", order)
	}
	if int64(len(chunks)) != count {
		return nil, fmt.Errorf("unexpected result: %d chunks received, the summary announces %d", len(chunks), count)
	}
	byIndex := make(map[int64][]any, len(chunks))
	for _, ch := range chunks {
		if len(ch.Args) < 2 {
			return nil, fmt.Errorf("unexpected result: chunk %v lacks [index, rows]", ch.Args)
		}
		idx, ok := wholeNumber(ch.Args[0])
		if !ok || idx < 0 || idx >= count {
			return nil, fmt.Errorf("unexpected result: bad chunk index %v", ch.Args[0])
		}
		if _, dup := byIndex[idx]; dup {
			return nil, fmt.Errorf("unexpected result: chunk %d arrived twice", idx)
		}
		rows, ok := ch.Args[1].([]any)
		if !ok && ch.Args[1] != nil {
			return nil, fmt.Errorf("unexpected result: chunk %d holds %T, not rows", idx, ch.Args[1])
		}
		byIndex[idx] = rows
	}
	indices := make([]int64, 0, len(byIndex))
	for i := range byIndex {
		indices = append(indices, i)
	}
	sort.Slice(indices, func(a, b int) bool { return indices[a] < indices[b] })
	var all []any
	for _, i := range indices {
		all = append(all, byIndex[i]...)
	}
	if int64(len(all)) != total {
		return nil, fmt.Errorf("unexpected result: %d rows in the chunks, the summary announces %d", len(all), total)
	}
	if order == "asc" {
		for i, j := 0, len(all)-1; i < j; i, j = i+1, j-1 {
			all[i], all[j] = all[j], all[i]
		}
	}
	return toRows(all)
}

func toRows(list []any) ([]Row, error) {
	rows := make([]Row, len(list))
	for i, r := range list {
		m, ok := r.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("unexpected result: row %d is %T, not an object", i, r)
		}
		rows[i] = Row(m)
	}
	return rows, nil
}

// wholeNumber accepts integers and integral floats (0.0).
func wholeNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case uint64:
		return int64(x), x <= math.MaxInt64
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return int64(x), true
		}
	}
	return 0, false
}
