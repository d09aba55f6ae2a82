package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/template"
)

// keptStore returns an opener of a store that keeps its schemas and roles
// (no scratch store) under a prefix of the test's own: every call opens
// the same storage. What it made is dropped when the test ends.
func keptStore(t *testing.T, url string) func(t *testing.T) store.Rows {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	prefix := "ifk" + hex.EncodeToString(b) + "_"
	open := func(t *testing.T) store.Rows {
		t.Helper()
		s, err := New(context.Background(), Config{URL: url, Prefix: prefix, MaxConns: 4})
		if err != nil {
			t.Fatalf("$%s: %v", storetest.PostgresEnv, err)
		}
		return s
	}
	t.Cleanup(func() {
		ps := open(t).(*pgStore)
		defer func() { _ = ps.Close() }()
		ctx := context.Background()
		var schemas, roles []string
		_ = ps.pool.QueryRow(ctx, "SELECT coalesce(array_agg(nspname), '{}') FROM pg_namespace WHERE starts_with(nspname, $1)", prefix).Scan(&schemas)
		_ = ps.pool.QueryRow(ctx, "SELECT coalesce(array_agg(rolname), '{}') FROM pg_roles WHERE starts_with(rolname, $1)", prefix).Scan(&roles)
		if err := ps.dropSchemas(ctx, schemas, roles); err != nil {
			t.Error(err)
		}
	})
	return open
}

// TestRows runs the rows suite on a PostgreSQL store kept across opens.
func TestRows(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	storetest.Rows(t, storetest.RowsBackend{Open: keptStore(t, url), Durable: true})
}

// TestStartedTenTimes: a store on the same database, with the test's
// role (CREATEROLE, no superuser, as docs/postgres.md recommends), opened
// and closed ten times: each start finds the rows of the last, takes one
// more, gives the realm's read-only role a connection string and records
// the seed ledger once.
func TestStartedTenTimes(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	tpl, _, err := template.ParseData([]byte(plansTemplate))
	if err != nil {
		t.Fatal(err)
	}
	const realm = "realm-2-26-DEV"
	open := keptStore(t, url)
	for i := range 10 {
		st := open(t)
		tables, err := st.Open(ctx, store.NewSchema(realm, tpl))
		if err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		if n, err := tables.Count(ctx, "credentials"); err != nil || n != int64(i) {
			t.Fatalf("start %d: %d rows kept (%v), want %d", i+1, n, err, i)
		}
		row := &store.NewRow{Vals: []any{int64(i) * 1000, "m", "ok", int64(42), "serial"}}
		if err := tables.Append(ctx, "credentials", []*store.NewRow{row}); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		if _, err := tables.ReaderURL(ctx); err != nil {
			t.Fatalf("start %d: the read-only role: %v", i+1, err)
		}
		seeded, err := st.Seeded(ctx, realm, "credentials", 42)
		if err != nil || seeded != (i > 0) {
			t.Fatalf("start %d: seeded %v (%v), want %v", i+1, seeded, err, i > 0)
		}
		if err := st.MarkSeeded(ctx, realm, "credentials", 42); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		if err := st.Close(); err != nil {
			t.Fatalf("start %d: close: %v", i+1, err)
		}
	}
}
