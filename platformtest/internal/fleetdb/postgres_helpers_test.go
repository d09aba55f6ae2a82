package fleetdb_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strings"
	"testing"
	"time"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/gammazero/nexus/v3/client"
	"github.com/jackc/pgx/v5"
)

// The tests of what only the PostgreSQL store does (transforms computed
// from their SQL, retention, downsampling, migrations, direct SQL, a lost
// server) run when $IRONFLOCK_TEST_POSTGRES names a database, as the
// conformance suite's PostgreSQL entry does (worldtest.Backends).

// pgWorld is a platform on PostgreSQL whose app (swarm 2, app 26) has a
// data template of the test's, installed on device 42 in DEV, with a raw
// client joined.
type pgWorld struct {
	p     *platformtest.Platform
	in    *platformtest.Installation
	c     *client.Client
	realm string
}

func newPGWorld(t *testing.T, url, tpl string, opts ...platformtest.Option) *pgWorld {
	t.Helper()
	base := []platformtest.Option{platformtest.WithStartTime(worldtest.T0), platformtest.WithPostgres(url, platformtest.PostgresScratch())}
	p := platformtest.New(t, append(base, opts...)...)
	pr := p.AddProject("plant", platformtest.Key(2))
	d := pr.AddDevice("press", platformtest.Key(42))
	app := p.AddApp("interop", tpl, platformtest.Key(26))
	w := &pgWorld{p: p, in: p.Install(d, app, platformtest.Dev)}
	w.realm = w.in.Realm()
	w.c = worldtest.Connect(t, p, w.in, client.MSGPACK)
	return w
}

func (w *pgWorld) insert(t *testing.T, table string, rows ...map[string]any) {
	t.Helper()
	if err := w.p.InsertRows(w.in, table, rows...); err != nil {
		t.Fatal(err)
	}
}

func (w *pgWorld) read(t *testing.T, name string, query map[string]any) []map[string]any {
	t.Helper()
	return worldtest.Call(t, w.c, "history.transformed."+name, query, nil, false).OK(t, "read "+name).Rows(t)
}

// sqlConn connects to url (a realm's read-only role, or the test
// database) for the test.
func sqlConn(t *testing.T, url string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(worldtest.Ctx(t), url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	return conn
}

// freshPrefix returns a schema prefix of the test's own, and drops the
// schemas and roles named with it when the test ends: for tests of state
// that outlives a platform.
func freshPrefix(t *testing.T, url string) string {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	prefix := "ifm" + hex.EncodeToString(b) + "_"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			t.Errorf("drop %s*: %v", prefix, err)
			return
		}
		defer conn.Close(ctx)
		var roles, schemas []string
		_ = conn.QueryRow(ctx, "SELECT coalesce(array_agg(rolname), '{}') FROM pg_roles WHERE starts_with(rolname, $1)", prefix).Scan(&roles)
		_ = conn.QueryRow(ctx, "SELECT coalesce(array_agg(nspname), '{}') FROM pg_namespace WHERE starts_with(nspname, $1)", prefix).Scan(&schemas)
		for _, r := range roles {
			_, _ = conn.Exec(ctx, "DROP OWNED BY "+pgx.Identifier{r}.Sanitize())
		}
		for _, s := range schemas {
			if _, err := conn.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{s}.Sanitize()+" CASCADE"); err != nil {
				t.Errorf("drop schema %s: %v", s, err)
			}
		}
		for _, r := range roles {
			if _, err := conn.Exec(ctx, "DROP ROLE "+pgx.Identifier{r}.Sanitize()); err != nil {
				t.Errorf("drop role %s: %v", r, err)
			}
		}
	})
	return prefix
}

// schemaOf is the schema of realm with prefix.
func schemaOf(prefix, realm string) string {
	return prefix + strings.ReplaceAll(strings.ToLower(realm), "-", "_")
}
