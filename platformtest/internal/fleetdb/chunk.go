// This file holds the answer of the data backend's reads (docs/wire.md §7.6),
// for history.transformed.<t>, history.transformed.<transform> and
// history.transformed.series.<t>: a plain list of rows in ascending order
// when the result fits the chunk budget; otherwise, when the caller set
// receive_progress, progressive results [i, [rows…]] (rows newest first
// inside each chunk, chunk 0 the newest) and a final
// {"chunked": true, "chunkCount": n, "totalRows": m, "order": "asc"};
// without receive_progress, sys.dataservice.error.result_too_large. A
// single row over the budget, or a result over the 1 GiB runaway guard, is
// result_too_large either way, with kwargs bytes, rows, tablename,
// limitBytes, topColumns [{name, bytes, pct}] and detail.
//
// Sizes are estimated as fleetdb does: per row 2 bytes plus, per column,
// the key's length + 3 and the value: strings and binary their length + 2,
// numbers and booleans 8, null 4, objects and lists their JSON length.

package fleetdb

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// runawayGuard is the largest result fleetdb builds at all: 1 GiB.
const runawayGuard = 1 << 30

// topColumnsShown is how many columns result_too_large names.
const topColumnsShown = 5

// valueSize estimates the JSON size of a value.
func valueSize(v any) int {
	switch x := v.(type) {
	case nil:
		return 4
	case string:
		return len(x) + 2
	case []byte:
		return len(x) + 2
	case bool, int64, uint64, float64, int:
		return 8
	}
	return len(store.JSONText(v))
}

// rowSize estimates the JSON size of a row and adds each column's share
// to perCol.
func rowSize(r map[string]any, perCol map[string]int) int {
	n := 2
	for k, v := range r {
		s := len(k) + 3 + valueSize(v)
		perCol[k] += s
		n += s
	}
	return n
}

// respond answers a read whose rows are given newest first.
func respond(ctx context.Context, h *realm.Host, inv *wamp.Invocation, name string, budget int, rows []map[string]any) client.InvokeResult {
	perCol := map[string]int{}
	sizes := make([]int, len(rows))
	total, largest := 0, 0
	for i, r := range rows {
		sizes[i] = rowSize(r, perCol)
		total += sizes[i]
		largest = max(largest, sizes[i])
	}
	progress, _ := inv.Details[wamp.OptReceiveProgress].(bool)
	switch {
	case largest > budget:
		return tooLarge(name, budget, total, len(rows), perCol,
			fmt.Sprintf("a single row of about %d bytes is over the chunk budget of %d bytes; select fewer columns (columns, columnPaths)", largest, budget)).result()
	case total > runawayGuard:
		return tooLarge(name, runawayGuard, total, len(rows), perCol,
			fmt.Sprintf("the result of about %d bytes is over the %d bytes the backend builds at all; narrow the query", total, runawayGuard)).result()
	case total <= budget:
		list := make(wamp.List, len(rows))
		for i, r := range rows {
			list[len(rows)-1-i] = r
		}
		return client.InvokeResult{Args: wamp.List{list}}
	case !progress:
		return tooLarge(name, budget, total, len(rows), perCol,
			fmt.Sprintf("the result of about %d bytes in %d rows is over the chunk budget of %d bytes; ask with receive_progress for chunks, or narrow the query", total, len(rows), budget)).result()
	}
	var chunks []wamp.List
	var cur wamp.List
	size := 0
	for i, r := range rows {
		if len(cur) > 0 && size+sizes[i] > budget {
			chunks, cur, size = append(chunks, cur), nil, 0
		}
		cur = append(cur, r)
		size += sizes[i]
	}
	chunks = append(chunks, cur)
	for i, ch := range chunks {
		if err := h.Session.SendProgress(ctx, wamp.List{int64(i), ch}, nil); err != nil {
			return client.InvokeResult{Err: wamp.ErrCanceled, Args: wamp.List{err.Error()}}
		}
	}
	return client.InvokeResult{Args: wamp.List{map[string]any{
		"chunked": true, "chunkCount": int64(len(chunks)), "totalRows": int64(len(rows)), "order": "asc",
	}}}
}

// tooLarge builds result_too_large with its kwargs.
func tooLarge(name string, limit, total, rows int, perCol map[string]int, detail string) *fleetError {
	type colSize struct {
		name  string
		bytes int
	}
	var cols []colSize
	for k, n := range perCol {
		cols = append(cols, colSize{k, n})
	}
	slices.SortFunc(cols, func(a, b colSize) int {
		if c := cmp.Compare(b.bytes, a.bytes); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	top := []any{}
	for _, c := range cols[:min(len(cols), topColumnsShown)] {
		pct := 0.0
		if total > 0 {
			pct = math.Round(1000*float64(c.bytes)/float64(total)) / 10
		}
		top = append(top, map[string]any{"name": c.name, "bytes": int64(c.bytes), "pct": store.NumberOut(pct)})
	}
	err := dataRefusal(errResultTooLarge, "result of %q too large: %s", name, detail)
	err.kwargs = map[string]any{
		"bytes": int64(total), "rows": int64(rows), "tablename": name, "limitBytes": int64(limit),
		"topColumns": top, "detail": detail,
	}
	return err
}
