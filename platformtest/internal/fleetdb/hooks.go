// This file holds the control hooks of the data backend (docs/fake.md),
// which the platform's facade offers tests: direct inserts (no feed), the
// stored rows (secrets as ciphertext, or decrypted), the chunk budget of a
// read and the rows of a transform; and AppendRows, the console's append,
// which publishes on the feed as a device's append does.
// They take a context, as every call to the store does (store.go). They
// serve no URI; SetTransformRows publishes transformed.<transform>
// (feed.go).

package fleetdb

import (
	"context"
	"fmt"
	"time"

	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Writer is who a direct insert writes as: the device of an installation.
type Writer struct {
	DeviceKey int64  // device_key of rows that do not set it
	Serial    string // authid of rows that do not set it
	App       string // the app's name, for error messages
}

// InsertRows stores rows in a table of realm as if w's device had
// appended them, all or none; nothing is published and the storage
// refusal does not apply. See platformtest.Platform.InsertRows.
func (db *DB) InsertRows(ctx context.Context, realm, table string, w Writer, rows ...map[string]any) error {
	_, _, _, err := db.insert(ctx, realm, table, w, rows)
	return err
}

// AppendRows stores rows as InsertRows does and then publishes them on
// the table's feed (transformed.<table>, or transformed.bulk.<table> for
// several rows), as the device's append would: the console's row editor.
func (db *DB) AppendRows(ctx context.Context, realmName, table string, w Writer, rows ...map[string]any) error {
	b, t, ps, err := db.insert(ctx, realmName, table, w, rows)
	if err != nil || len(ps) == 0 {
		return err
	}
	t.publishFeed(b.currentHost(), ps, len(ps) > 1, realm.Trace{})
	return nil
}

// insert types and commits rows for InsertRows and AppendRows.
func (db *DB) insert(ctx context.Context, realm, table string, w Writer, rows []map[string]any) (*backend, *table, []*pending, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("insert into %q: %w", table, err)
	}
	t := b.table(table)
	if t == nil {
		return nil, nil, nil, fmt.Errorf("insert into %q: the data template of app %q declares no such table", table, w.App)
	}
	ps := make([]*pending, len(rows))
	for n, r := range rows {
		raw := make([]any, len(t.cols))
		present := make([]bool, len(t.cols))
		dk, authID := w.DeviceKey, any(w.Serial)
		for k, v := range r {
			i, ok := t.byID[k]
			switch {
			case !ok || (t.cols[i].implicit && i == t.id):
				return nil, nil, nil, fmt.Errorf("insert into %q: row %d: no column %q", table, n, k)
			case i == t.devKey:
				dk = -1
				if x, ok := store.BigintValue(normalizeValue(v)).(int64); ok {
					dk = x
				}
			case i == t.authID:
				authID = nil
				if v != nil {
					authID = store.JSString(normalizeValue(v))
				}
			default:
				raw[i], present[i] = normalizeValue(v), true
			}
		}
		pd, ferr := t.typed(raw, present, dk, authID)
		if ferr != nil {
			return nil, nil, nil, fmt.Errorf("insert into %q: row %d: %v", table, n, describe(ferr))
		}
		ps[n] = pd
	}
	if len(ps) == 0 {
		return b, t, nil, nil
	}
	if ferr := b.commit(ctx, t, ps); ferr != nil {
		return nil, nil, nil, fmt.Errorf("insert into %q: %v", table, describe(ferr))
	}
	return b, t, ps, nil
}

// describe renders a refusal for a Go error message.
func describe(e *fleetError) string {
	if e.missingTsp {
		return "the row has no tsp"
	}
	if e.cause != nil {
		return "storage failed: " + e.cause.Error()
	}
	if len(e.args) == 1 {
		if s, ok := e.args[0].(string); ok {
			return e.uri + ": " + s
		}
		return e.uri + " " + store.JSONText(e.args[0])
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
	return wirevalue.Clone(v)
}

// TableRows returns the rows stored in a table of realm, oldest first,
// typed as reads type them, with secret columns as stored: ciphertext
// ifsec:1:…, as direct SQL access shows them. See
// platformtest.Platform.TableRows.
func (db *DB) TableRows(ctx context.Context, realm, table string) ([]map[string]any, error) {
	return db.storedRows(ctx, realm, table, false)
}

// DecryptedTableRows returns the rows of TableRows with secret columns
// decrypted. See platformtest.Platform.DecryptedTableRows.
func (db *DB) DecryptedTableRows(ctx context.Context, realm, table string) ([]map[string]any, error) {
	return db.storedRows(ctx, realm, table, true)
}

func (db *DB) storedRows(ctx context.Context, realm, table string, decrypt bool) ([]map[string]any, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, err
	}
	t := b.table(table)
	if t == nil {
		return nil, fmt.Errorf("table rows: realm %q has no table %q", realm, table)
	}
	out := []map[string]any{}
	for vals, err := range b.store.Scan(ctx, table) {
		if err != nil {
			return nil, fmt.Errorf("table rows: %q: %w", table, err)
		}
		m := make(map[string]any, len(t.cols))
		for i := range t.cols {
			v := vals[i]
			if decrypt && t.cols[i].secret {
				if v, err = t.seal.plainValue(v); err != nil {
					return nil, fmt.Errorf("table rows: %q row %d column %q: %w", table, len(out), t.cols[i].id, err)
				}
			}
			m[t.cols[i].id] = outValue(t.cols[i].typ, false, v)
		}
		out = append(out, m)
	}
	return out, nil
}

// SetChunkBudget sets the chunk budget of reads of a table or transform of
// realm; bytes ≤ 0 restores the default, 8 MiB. See
// platformtest.Platform.SetChunkBudget.
func (db *DB) SetChunkBudget(ctx context.Context, realm, table string, bytes int) error {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return err
	}
	if bytes <= 0 {
		bytes = defaultChunkBytes
	}
	switch t, v := b.table(table), b.views[table]; {
	case t != nil:
		t.chunkBytes.Store(int64(bytes))
	case v != nil:
		v.chunkBytes.Store(int64(bytes))
	default:
		return fmt.Errorf("chunk budget: realm %q has no table or transform %q", realm, table)
	}
	return nil
}

// SetTransformRows sets the rows of a transform of realm and publishes the
// view on transformed.<transform> through the realm's current Host; nothing
// is published while the realm is not in the router. A store that
// computes transforms from their SQL refuses (store.ErrNotSupported). See
// platformtest.Platform.SetTransformRows.
func (db *DB) SetTransformRows(ctx context.Context, realm, transform string, rows []map[string]any) error {
	b, v, err := db.transform(ctx, realm, transform)
	if err != nil {
		return err
	}
	typed := make([]map[string]any, len(rows))
	for n, r := range rows {
		m := make(map[string]any, len(r))
		for k, x := range r {
			x = normalizeValue(x)
			if i, ok := v.byID[k]; ok {
				sv, code := store.StoreValue(v.cols[i].typ, x)
				if code != "" {
					return fmt.Errorf("transform %q: row %d: column %q: %s", transform, n, k, describe(pgError(code)))
				}
				m[k] = sv
			} else {
				m[k] = store.JSONValue(x)
			}
		}
		typed[n] = m
	}
	if err := b.store.SetTransformRows(ctx, transform, typed); err != nil {
		return fmt.Errorf("transform %q: %w", transform, err)
	}
	return b.publishView(ctx, v)
}

// transform returns the backend of realm and its transform.
func (db *DB) transform(ctx context.Context, realm, transform string) (*backend, *view, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, nil, fmt.Errorf("transform %q: %w", transform, err)
	}
	v := b.views[transform]
	if v == nil {
		return nil, nil, fmt.Errorf("transform %q: realm %q declares no such transform", transform, realm)
	}
	return b, v, nil
}

// publishView publishes a transform's content, at most 3000 rows, on
// transformed.<transform> through the realm's current Host, as a
// schedule tick does.
func (b *backend) publishView(ctx context.Context, v *view) error {
	h := b.currentHost()
	if h == nil || h.Session == nil {
		return nil
	}
	rows, err := b.store.ReadTransform(ctx, v.name, &TransformQuery{Limit: maxViewFeedRows})
	if err != nil {
		return fmt.Errorf("transform %q: %w", v.name, err)
	}
	feed := make([]map[string]any, len(rows))
	for n, r := range rows {
		feed[n] = v.outRow(r)
	}
	publishView(h, v, feed)
	return nil
}
