// This file holds the test hooks of the data backend (WIRE.md §6.6),
// exported as methods of Platform: direct inserts (no feed), the stored
// rows, the chunk budget of a read and the
// rows of a transform. Every inbound payload of the backend is recorded by
// the router (Platform.Recorded). The hooks serve no URI.

package platformtest

import (
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/wirevalue"
)

// InsertRows stores rows in a table of in's realm as if in's device had
// appended them: device_key and authid are the device's key and serial
// unless a row sets them. A row maps column ids to values (time.Time,
// ISO 8601 text or epoch milliseconds for timestamps); the write rules
// apply (storage typing, entity merge and conflicts, secret placeholder
// and ciphertext refusals), the storage refusal does not, and nothing is
// published on the feeds. The rows are all stored or, on the first
// refused one, none; a key that is not a column of the table is an error.
// Inserting in tsp order is cheapest: a million rows take seconds.
func (p *Platform) InsertRows(in *Installation, table string, rows ...map[string]any) error {
	if in == nil {
		return fmt.Errorf("insert into %q: no installation", table)
	}
	b, err := p.backendFor(in.Realm())
	if err != nil {
		return fmt.Errorf("insert into %q: %w", table, err)
	}
	t := b.table(table)
	if t == nil {
		return fmt.Errorf("insert into %q: the data template of app %q declares no such table", table, in.App().Name())
	}
	devKey, serial := int64(in.Device().Key()), in.Device().Serial()
	ps := make([]*pending, len(rows))
	for n, r := range rows {
		raw := make([]any, len(t.cols))
		present := make([]bool, len(t.cols))
		dk, authID := devKey, any(serial)
		for k, v := range r {
			i, ok := t.byID[k]
			switch {
			case !ok || (t.cols[i].implicit && i == t.id):
				return fmt.Errorf("insert into %q: row %d: no column %q", table, n, k)
			case i == t.devKey:
				dk = -1
				if x, ok := bigintValue(normalizeValue(v)).(int64); ok {
					dk = x
				}
			case i == t.authID:
				authID = nil
				if v != nil {
					authID = jsString(normalizeValue(v))
				}
			default:
				raw[i], present[i] = normalizeValue(v), true
			}
		}
		pd, ferr := t.typed(raw, present, dk, authID)
		if ferr != nil {
			return fmt.Errorf("insert into %q: row %d: %v", table, n, describe(ferr))
		}
		ps[n] = pd
	}
	if len(ps) == 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, _, ferr := b.commit(t, ps); ferr != nil {
		return fmt.Errorf("insert into %q: %v", table, describe(ferr))
	}
	return nil
}

// describe renders a refusal for a Go error message.
func describe(e *fleetError) string {
	if e.missingTsp {
		return "the row has no tsp"
	}
	if len(e.args) == 1 {
		if s, ok := e.args[0].(string); ok {
			return e.uri + ": " + s
		}
		return e.uri + " " + jsonText(e.args[0])
	}
	return e.uri
}

// normalizeValue brings a value given in Go into the wire's forms (int64,
// float64, map[string]any, []any...).
func normalizeValue(v any) any {
	switch x := v.(type) {
	case nil, string, bool, int64, float64, time.Time:
		return v
	case int:
		return int64(x)
	}
	return wirevalue.CloneList([]any{v})[0]
}

// TableRows returns the rows stored in a table of realm, oldest first (by
// tsp, then insertion): every column with device_key and authid (and id
// for error-logs), typed as reads type them (timestamps as epoch
// milliseconds) but with secret columns in plaintext, as the fake stores
// them. An unknown realm or table fails the test (a platform made by Start
// panics).
func (p *Platform) TableRows(realm, table string) []map[string]any {
	b := p.mustBackend(realm)
	if b == nil {
		return nil
	}
	b.mu.RLock()
	defer b.mu.RUnlock()
	t := b.table(table)
	if t == nil {
		p.failf("table rows: realm %q has no table %q", realm, table)
		return nil
	}
	out := make([]map[string]any, len(t.rows))
	for n, r := range t.rows {
		m := make(map[string]any, len(t.cols))
		for i := range t.cols {
			m[t.cols[i].id] = outValue(t.cols[i].typ, false, r.vals[i])
		}
		out[n] = m
	}
	return out
}

// SetChunkBudget sets the chunk budget of reads of a table or transform of
// realm: results whose estimated JSON size is over it come in chunks (or
// fail with result_too_large without receive_progress). The default is 8
// MiB; bytes ≤ 0 restores it. An unknown realm or table fails the test (a
// platform made by Start panics).
func (p *Platform) SetChunkBudget(realm, table string, bytes int) {
	b := p.mustBackend(realm)
	if b == nil {
		return
	}
	if bytes <= 0 {
		bytes = defaultChunkBytes
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch t, v := b.table(table), b.views[table]; {
	case t != nil:
		t.chunkBytes = bytes
	case v != nil:
		v.chunkBytes = bytes
	default:
		p.failf("chunk budget: realm %q has no table or transform %q", realm, table)
	}
}

// SetTransformRows sets the rows of a transform of realm, in the order
// its SQL would return them (the fake cannot run the SQL). Reads apply
// the transform rules to them; the whole view, at most 3000 rows in
// reverse order, is published on transformed.<transform> as a schedule
// tick would. Values of declared columns are typed like table columns;
// other keys are kept as given.
func (p *Platform) SetTransformRows(realm, transform string, rows []map[string]any) error {
	b, err := p.backendFor(realm)
	if err != nil {
		return fmt.Errorf("transform %q: %w", transform, err)
	}
	v := b.views[transform]
	if v == nil {
		return fmt.Errorf("transform %q: realm %q declares no such transform", transform, realm)
	}
	typed := make([]map[string]any, len(rows))
	for n, r := range rows {
		m := make(map[string]any, len(r))
		for k, x := range r {
			x = normalizeValue(x)
			if i, ok := v.byID[k]; ok {
				sv, code := storeValue(v.cols[i].typ, x)
				if code != "" {
					return fmt.Errorf("transform %q: row %d: column %q: %s", transform, n, k, describe(pgError(code)))
				}
				m[k] = sv
			} else {
				m[k] = jsonValue(x)
			}
		}
		typed[n] = m
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	v.rows = typed
	feed := make([]map[string]any, len(typed))
	for n, r := range typed {
		feed[n] = v.outRow(r)
	}
	publishView(p.runtimeOf(realm), v, feed)
	return nil
}

// mustBackend returns the backend of realm, failing the test when there is
// none.
func (p *Platform) mustBackend(realm string) *backend {
	b, err := p.backendFor(realm)
	if err != nil {
		p.failf("%v", err)
		return nil
	}
	return b
}

func (p *Platform) failf(format string, a ...any) {
	if p.tb != nil {
		p.tb.Helper()
	}
	p.fail(fmt.Errorf(format, a...))
}
