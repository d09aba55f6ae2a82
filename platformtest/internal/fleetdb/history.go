// This file holds the history reads of the data backend (docs/wire.md §7.5,
// §7.6, docs/fake.md §3). It serves:
//
//	history.transformed.<t>          every declared table and error-logs
//	history.transformed.<transform>  every declared transform
//
// A table read: validate (validate.go), time range (truthy bounds, whole
// seconds, start ≤ tsp < end), filters (filter.go), the latest marker
// (its rules are on ReadQuery, query.go), newest first by (tsp, insertion
// sequence), offset, limit, projection: a ReadQuery the store answers
// (store.go); then columnPaths pruning, typed values and the answer in
// ascending order or in chunks (chunk.go). A transform read: limit at most
// 3000 (invalid_limit), filters on the transform's declared columns only,
// offset and limit over the view's rows in their order; time range,
// columns and the latest marker are ignored.
//
// limit 0 passes the validator (uint32); the fake answers it with no rows,
// as Postgres does for LIMIT 0.

package fleetdb

import (
	"context"
	"strconv"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// maxViewLimit is the largest limit of a transform read.
const maxViewLimit = 3000

// maxPrunedKeys is the most keys columnPaths may select on one level of a
// json column; more return the whole column.
const maxPrunedKeys = 50

// denied reports a cross-app reader on a table it may not read.
func denied(inv *wamp.Invocation, private bool) bool {
	role, _ := inv.Details["caller_authrole"].(string)
	return private && role == wire.RoleAppReader
}

func notAuthorized(name string) client.InvokeResult {
	return client.InvokeResult{Err: wire.ErrNotAuthorized, Args: wamp.List{"table " + strconv.Quote(name) + " is private to the app"}}
}

func (b *backend) serveHistory(ctx context.Context, h *realm.Host, t *table, inv *wamp.Invocation) client.InvokeResult {
	if denied(inv, t.private || t.system) {
		return notAuthorized(t.name)
	}
	q, err := validateHistory(wirevalue.CloneList(inv.Arguments))
	if err != nil {
		return err.result()
	}
	rows, err := b.history(ctx, t, q)
	if err != nil {
		logStoreFailure(h, "history", t.name, err)
		return err.result()
	}
	return respond(ctx, h, inv, t.name, int(t.chunkBytes.Load()), rows)
}

// history runs a validated table read and returns its rows newest first.
func (b *backend) history(ctx context.Context, t *table, q *readQuery) ([]map[string]any, *fleetError) {
	sel, err := b.read(ctx, t, q)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(sel.rows))
	for i, r := range sel.rows {
		out[i] = sel.prune(t, t.outRow(r, sel.cols))
	}
	return out, nil
}

// selection is what a validated table read selects.
type selection struct {
	rows  [][]any           // newest first
	cols  []int             // the projection
	paths map[int]*pathNode // columnPaths pruning, by column
}

// read selects the rows of a validated table read (time range, filters,
// latest marker, newest first, offset, limit) and its columns; extra
// columns join a requested projection.
func (b *backend) read(ctx context.Context, t *table, q *readQuery, extra ...int) (*selection, *fleetError) {
	start, end, err := historyRange(q.timeRange)
	if err != nil {
		return nil, err
	}
	fe := t.filterEnv()
	f, err := fe.compile(q.filters, "filterAnd")
	if err != nil {
		return nil, err
	}
	cols, err := t.projection(q, fe.latest, extra)
	if err != nil {
		return nil, err
	}
	rq := &ReadQuery{Start: start, End: end, Filter: f, Latest: fe.latest, Offset: q.offset, Limit: q.limit}
	if q.hasColumns {
		rq.Columns = cols
	}
	rows, serr := b.store.Read(ctx, t.name, rq)
	if serr != nil {
		return nil, storeError(t.name, serr)
	}
	return &selection{rows: rows, cols: cols, paths: t.pathPlan(q)}, nil
}

// prune applies the columnPaths of a read to an output row.
func (sel *selection) prune(t *table, m map[string]any) map[string]any {
	for idx, node := range sel.paths {
		if v := m[t.cols[idx].id]; v != nil {
			m[t.cols[idx].id] = node.prune(v)
		}
	}
	return m
}

// projection returns the columns a read returns: every column, or the
// requested ones with tsp, device_key and authid (and the entity key with
// the latest marker, and extra). An unknown column fails like Postgres
// (42703).
func (t *table) projection(q *readQuery, latest bool, extra []int) ([]int, *fleetError) {
	if !q.hasColumns {
		return t.allCols(), nil
	}
	seen := map[int]bool{t.tsp: true, t.devKey: true, t.authID: true}
	for _, i := range extra {
		seen[i] = true
	}
	if latest {
		for _, i := range t.entity {
			seen[i] = true
		}
	}
	for _, name := range q.columns {
		i, ok := t.byID[name]
		if !ok {
			return nil, pgError(store.CodeUndefinedColumn)
		}
		seen[i] = true
	}
	cols := make([]int, 0, len(seen))
	for i := range t.cols {
		if seen[i] {
			cols = append(cols, i)
		}
	}
	return cols, nil
}

// pathNode is one level of the columnPaths of a json column.
type pathNode struct {
	leaf bool
	kids map[string]*pathNode
}

// pathPlan returns, per json column listed in columns, the paths to keep.
// A bare column name among the paths, or more than 50 keys on one level,
// keeps the whole column.
func (t *table) pathPlan(q *readQuery) map[int]*pathNode {
	if len(q.paths) == 0 || !q.hasColumns {
		return nil
	}
	listed := map[string]bool{}
	for _, c := range q.columns {
		listed[c] = true
	}
	plan := map[int]*pathNode{}
	bare := map[int]bool{}
	for _, p := range q.paths {
		keys, err := template.PathKeys(p)
		if err != nil || !listed[keys[0]] {
			continue
		}
		i := t.byID[keys[0]]
		if t.cols[i].typ != template.TypeJSON {
			continue
		}
		if len(keys) == 1 {
			bare[i] = true
			continue
		}
		n := plan[i]
		if n == nil {
			n = &pathNode{}
			plan[i] = n
		}
		n.add(keys[1:])
	}
	for i, n := range plan {
		if bare[i] || n.tooWide() {
			delete(plan, i)
		}
	}
	return plan
}

func (n *pathNode) add(keys []string) {
	for _, k := range keys {
		if n.leaf {
			return // a shorter path already keeps everything below
		}
		if n.kids == nil {
			n.kids = map[string]*pathNode{}
		}
		kid := n.kids[k]
		if kid == nil {
			kid = &pathNode{}
			n.kids[k] = kid
		}
		n = kid
	}
	n.leaf, n.kids = true, nil
}

func (n *pathNode) tooWide() bool {
	if len(n.kids) > maxPrunedKeys {
		return true
	}
	for _, k := range n.kids {
		if k.tooWide() {
			return true
		}
	}
	return false
}

// prune keeps the selected paths of a json value; missing keys are null.
func (n *pathNode) prune(v any) any {
	if n.leaf {
		return v
	}
	out := make(map[string]any, len(n.kids))
	for k, kid := range n.kids {
		child, found := lookup(v, []string{k})
		if !found || child == nil {
			out[k] = nil
			continue
		}
		out[k] = kid.prune(child)
	}
	return out
}

func (b *backend) serveViewHistory(ctx context.Context, h *realm.Host, v *view, inv *wamp.Invocation) client.InvokeResult {
	if denied(inv, v.private) {
		return notAuthorized(v.name)
	}
	q, err := validateHistory(wirevalue.CloneList(inv.Arguments))
	if err != nil {
		return err.result()
	}
	if q.limit > maxViewLimit {
		return dataRefusal(errInvalidLimit, "limit %d: a transform read returns at most %d rows", q.limit, maxViewLimit).result()
	}
	f, err := v.filterEnv().compile(q.filters, "filterAnd")
	if err != nil {
		return err.result()
	}
	rows, serr := b.store.ReadTransform(ctx, v.name, &TransformQuery{Filter: f, Offset: q.offset, Limit: q.limit})
	if serr != nil {
		err := storeError(v.name, serr)
		logStoreFailure(h, "transform", v.name, err)
		return err.result()
	}
	page := make([]map[string]any, len(rows))
	for i, r := range rows {
		page[i] = v.outRow(r)
	}
	return respond(ctx, h, inv, v.name, int(v.chunkBytes.Load()), page)
}

// outRow types a view row for a read or a feed: declared columns as
// outValue types them (secrets masked, timestamps as ISO texts), the
// others as json values.
func (v *view) outRow(r map[string]any) map[string]any {
	m := make(map[string]any, len(r))
	for k, x := range r {
		if i, ok := v.byID[k]; ok {
			m[k] = outValue(v.cols[i].typ, v.cols[i].secret, x)
			continue
		}
		m[k] = store.JSONOut(x)
	}
	return m
}
