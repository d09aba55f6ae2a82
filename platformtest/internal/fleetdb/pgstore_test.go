package fleetdb

import (
	"context"
	"strings"
	"testing"
	"time"
)

// postgresStores are the PostgreSQL entries of unitStores: the tests of
// what only that store does run on them.
func postgresStores(tb testing.TB) []unitStore {
	var out []unitStore
	for _, s := range unitStoresOf(tb) {
		if s.name == "postgres" {
			out = append(out, s)
		}
	}
	return out
}

// TestPostgresAtomicAppends: an append that fails half-way stores none of
// its rows, in each of the store's ways of writing: a COPY (a text the
// server refuses in row 4 000), a batch of entity rows (a conflict in row
// 3; a text refused in its last row) and error-logs' batch with generated
// ids, which stay in insertion order.
func TestPostgresAtomicAppends(t *testing.T) {
	for _, s := range postgresStores(t) {
		t.Run("store="+s.name, func(t *testing.T) {
			db, _ := newUnitDB(t, s)
			ctx := context.Background()
			count := func(table string) int {
				t.Helper()
				rows, err := db.TableRows(ctx, unitRealm.Name, table)
				if err != nil {
					t.Fatal(err)
				}
				return len(rows)
			}
			stored := make([]map[string]any, 3)
			for i := range stored {
				stored[i] = map[string]any{"tsp": ms(time.Duration(i) * time.Second), "machine": "m", "state": "ok"}
			}
			insert(t, db, "credentials", stored...)
			if err := db.InsertRows(ctx, unitRealm.Name, "credentials", unitWriter,
				map[string]any{"tsp": ms(time.Hour), "machine": "m2"},
				map[string]any{"tsp": ms(time.Hour + time.Second), "machine": "m2"},
				map[string]any{"tsp": ms(0), "machine": "m"}, // stored already
			); err == nil || !strings.Contains(err.Error(), "entity_key_conflict") {
				t.Errorf("a batch with a conflict in row 3: %v", err)
			}
			if n := count("credentials"); n != 3 {
				t.Errorf("credentials: %d rows after the refused batch, want 3", n)
			}
			// A COPY the server refuses at row 4 000 (text may not hold NUL).
			pdb, _ := newTemplateDB(t, s, diffTemplate)
			plain := make([]map[string]any, 5000)
			for i := range plain {
				plain[i] = map[string]any{"tsp": ms(time.Duration(i) * time.Millisecond), "str": "x"}
			}
			plain[3999]["str"] = "nul \x00 byte"
			if err := pdb.InsertRows(ctx, unitRealm.Name, "plain", unitWriter, plain...); err == nil || !strings.Contains(err.Error(), "22021") {
				t.Errorf("a COPY with a bad row 4000: %v", err)
			}
			if rows, err := pdb.TableRows(ctx, unitRealm.Name, "plain"); err != nil || len(rows) != 0 {
				t.Errorf("plain: %d rows stored of a refused COPY (%v)", len(rows), err)
			}
			nul := make([]map[string]any, 4001)
			for i := range nul {
				nul[i] = map[string]any{"tsp": ms(time.Duration(i) * time.Millisecond), "machine": nil, "state": "x"}
			}
			nul[4000]["state"] = "nul \x00 byte"
			if err := db.InsertRows(ctx, unitRealm.Name, "credentials", unitWriter, nul...); err == nil || !strings.Contains(err.Error(), "22021") {
				t.Errorf("a batch whose last row the server refuses: %v", err)
			}
			if n := count("credentials"); n != 3 {
				t.Errorf("credentials: %d rows after a refused batch, want 3", n)
			}
			logs := []map[string]any{{"tsp": ms(0), "msg": "a"}, {"tsp": ms(1), "msg": "nul \x00"}}
			if err := db.InsertRows(ctx, unitRealm.Name, "error-logs", unitWriter, logs...); err == nil {
				t.Error("error-logs: a batch with a refused row succeeded")
			}
			insert(t, db, "error-logs", map[string]any{"tsp": ms(2), "msg": "b"}, map[string]any{"tsp": ms(3), "msg": "c"})
			got, err := db.TableRows(ctx, unitRealm.Name, "error-logs")
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 2 {
				t.Fatalf("error-logs: %v", got)
			}
			if id0, id1 := got[0]["id"].(int64), got[1]["id"].(int64); id1 != id0+1 {
				t.Errorf("error-logs ids %d, %d: not in insertion order", id0, id1)
			}
		})
	}
}
