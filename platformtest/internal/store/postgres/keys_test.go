package postgres

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// pgKeys opens the keys of PostgreSQL stores under one prefix of the
// test's own, kept across closes (no scratch store); what the stores made
// is dropped when the test ends.
type pgKeys struct {
	url, prefix string
}

// newPGKeys returns the backend of a fresh prefix at url.
func newPGKeys(t *testing.T, url string) pgKeys {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	k := pgKeys{url: url, prefix: "ifk" + hex.EncodeToString(b) + "_"}
	t.Cleanup(func() {
		ctx := context.Background()
		s, err := New(ctx, Config{URL: url, Prefix: k.prefix, MaxConns: 2})
		if err != nil {
			t.Error(err)
			return
		}
		defer s.Close()
		ps := s.(*pgStore)
		var schemas []string
		_ = ps.pool.QueryRow(ctx, "SELECT coalesce(array_agg(nspname), '{}') FROM pg_namespace WHERE starts_with(nspname, $1)", k.prefix).Scan(&schemas)
		if err := ps.dropSchemas(ctx, schemas, nil); err != nil {
			t.Error(err)
		}
	})
	return k
}

func (k pgKeys) Open(testing.TB) (store.Keys, func() error, error) {
	s, err := New(context.Background(), Config{URL: k.url, Prefix: k.prefix, MaxConns: 2})
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}

func (pgKeys) Kept() bool { return true }

// Exclusive is true: a store holds its prefix (hold.go), so a second one
// on the same database and prefix is refused while the first runs.
func (pgKeys) Exclusive() bool { return true }

// TestPostgresKeys runs the keys suite on the PostgreSQL store.
func TestPostgresKeys(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	storetest.RunKeys(t, func(t *testing.T) storetest.KeysBackend { return newPGKeys(t, url) })
}

// TestPostgresKeysEarlierLayout: a database whose key of secret columns
// an earlier version kept (the table secret_key, id 1) opens with the same
// key, and keeps it across a restart.
func TestPostgresKeysEarlierLayout(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	k := newPGKeys(t, url)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	meta := qi(k.prefix + "ironflock")
	old := bytes.Repeat([]byte{7}, store.KeySize)
	for _, q := range []string{
		"CREATE SCHEMA " + meta,
		"CREATE TABLE " + meta + ".secret_key (id int PRIMARY KEY CHECK (id = 1), key bytea NOT NULL)",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := conn.Exec(ctx, "INSERT INTO "+meta+".secret_key (id, key) VALUES (1, $1)", old); err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		keys, closeKeys, err := k.Open(t)
		if err != nil {
			t.Fatal(err)
		}
		got, err := keys.Key(ctx, store.SecretColumnsKey)
		if err != nil || !bytes.Equal(got, old) {
			t.Errorf("start %d: the key of secret columns %x, %v; the database holds %x", i+1, got, err, old)
		}
		_ = closeKeys()
	}
}
