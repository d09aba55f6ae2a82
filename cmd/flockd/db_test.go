package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresEnv names the variable with the connection string of the
// database the PostgreSQL tests use (docs/testing.md; .ci/run sets it). Unset,
// they fail on CI (CI=true) and are not run elsewhere (postgresURL).
const postgresEnv = "IRONFLOCK_TEST_POSTGRES"

// freshDatabase makes a database of the test's own on the server of
// $IRONFLOCK_TEST_POSTGRES and returns its URL; the database and the
// roles flockd made for it are dropped when the test ends.
func freshDatabase(t testing.TB, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("$%s: %v", postgresEnv, err)
	}
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "flockd_" + hex.EncodeToString(b)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	_ = admin.Close(ctx)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dropDatabase(ctx, base, base, name); err != nil {
			t.Error(err)
		}
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close(ctx)
		var roles []string
		_ = admin.QueryRow(ctx, "SELECT coalesce(array_agg(rolname), '{}') FROM pg_roles WHERE starts_with(rolname, $1)", name+"_").Scan(&roles)
		for _, r := range roles {
			if _, err := admin.Exec(ctx, "DROP ROLE "+pgx.Identifier{r}.Sanitize()); err != nil {
				t.Error(err)
			}
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// TestDBFlag: flockd -db keeps the demo's tables in PostgreSQL, prints a
// read-only connection string per app backend and writes it to the
// environment file; with it, SQL reads the demo's rows by their table's
// template name.
func TestDBFlag(t *testing.T) {
	base := postgresURL(t) // db_restart_test.go
	if base == "" {
		return
	}
	db := freshDatabase(t, base)
	f, logs := serveInBackground(t, "-db", db)
	if len(f.SQL) != 1 {
		t.Fatalf("env file sql: %+v", f.SQL)
	}
	e := f.SQL[0]
	if e.Project != "demo" || e.App != "quickstart" || e.Stage != "DEV" || e.Realm != "realm-1-1-dev" || !strings.HasPrefix(e.URL, "postgres://") {
		t.Errorf("env file sql entry %+v", e)
	}
	if !strings.Contains(logs.String(), "direct SQL (read-only)") || !strings.Contains(logs.String(), e.URL) {
		t.Errorf("the log does not print the connection string:\n%s", logs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, e.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var n int
	if err := conn.QueryRow(ctx, "SELECT count(*) FROM sensordata").Scan(&n); err != nil || n == 0 {
		t.Errorf("the demo's rows over direct SQL: %d, %v", n, err)
	}
}

// TestDBUnreachable: flockd stops at start, saying so, when the -db
// server cannot be reached; -db-wait bounds how long it waits.
func TestDBUnreachable(t *testing.T) {
	ctx := context.Background()
	err := run(ctx, []string{"-memory", "-listen", "127.0.0.1:0", "-db", "postgres://nobody:x@127.0.0.1:1/none"}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "cannot reach the server at 127.0.0.1:1") || !strings.Contains(err.Error(), "-db-wait") {
		t.Errorf("flockd -db with no server: %v", err)
	}
	err = run(ctx, []string{"-memory", "-listen", "127.0.0.1:0", "-db", "postgres://nobody:x@127.0.0.1:1/none", "-db-wait", "300ms"}, io.Discard, io.Discard, nil)
	if err == nil || !strings.Contains(err.Error(), "did not answer within 300ms") {
		t.Errorf("flockd -db-wait 300ms with no server: %v", err)
	}
}
