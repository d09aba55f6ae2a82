package console_test

import (
	"context"
	"fmt"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"net/http"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
)

// sqlWorld is a platform on PostgreSQL with the console, app "sensors"
// (dataTemplate) installed on one device, and rows.
func sqlWorld(t *testing.T, dbURL string) *world {
	t.Helper()
	p := platformtest.New(t, platformtest.WithConsole(platformtest.Console{}), platformtest.WithPostgres(dbURL, platformtest.PostgresScratch()))
	d := p.AddProject("factory").AddDevice("press-1")
	w := &world{p: p, in1: p.Install(d, p.AddApp("sensors", dataTemplate), platformtest.Dev)}
	w.realm = w.in1.Realm()
	for i, s := range []string{"s1", "s2", "s3"} {
		if err := p.InsertRows(w.in1, "readings", map[string]any{"tsp": t0.Add(-time.Duration(i) * time.Minute), "sensor": s, "celsius": 20 + i, "pin": "1234"}); err != nil {
			t.Fatal(err)
		}
	}
	w.http = &http.Client{Timeout: 20 * time.Second}
	return w
}

// TestSQLPage: the SQL page runs a read-only query on a realm's data
// backend and shows its answer as a table, at most the row limit, with
// the realm's connection string; a write or an error is shown as the
// error PostgreSQL answered; the memory store has no SQL.
func TestSQLPage(t *testing.T) {
	dbURL := storetest.PostgresURL(t)
	if dbURL != "" {
		t.Run("store=postgres", func(t *testing.T) {
			w := sqlWorld(t, dbURL)
			query := func(sql string, extra ...string) string {
				t.Helper()
				q := url.Values{"realm": {w.realm}, "q": {sql}}
				for i := 0; i+1 < len(extra); i += 2 {
					q.Set(extra[i], extra[i+1])
				}
				status, page := w.do(t, http.MethodGet, "/sql?"+q.Encode(), nil, sameSite)
				if status != 200 {
					t.Fatalf("status %d:\n%s", status, page)
				}
				return page
			}
			page := query("SELECT sensor, celsius, pin IS NULL AS no_pin, NULL AS nothing FROM readings ORDER BY sensor")
			if d := cmp.Diff([][]string{{"s1", "20", "false", "NULL"}, {"s2", "21", "false", "NULL"}, {"s3", "22", "false", "NULL"}}, tableCells(t, page, "sql-result")); d != "" {
				t.Errorf("answer (-want +got):\n%s", d)
			}
			if !strings.Contains(page, `<code id="sql-url">psql 'postgres://`) || !strings.Contains(page, "3 rows.") {
				t.Errorf("page lacks the connection string or the row count:\n%s", page)
			}
			page = query("SELECT sensor FROM readings ORDER BY sensor", "limit", "2")
			if got := tableCells(t, page, "sql-result"); len(got) != 2 || !strings.Contains(page, "more not shown (row limit 2)") {
				t.Errorf("row limit 2: %v", got)
			}
			for sql, want := range map[string]string{
				"DELETE FROM readings":  "read-only transaction",
				"SELECT * FROM nothing": `relation &#34;nothing&#34; does not exist`,
				"SELECT pg_sleep(5)":    "canceling statement due to statement timeout",
			} {
				page := query(sql, "timeout", "1")
				if !strings.Contains(page, `id="sql-error"`) || !strings.Contains(page, want) {
					t.Errorf("%s: the page lacks %q", sql, want)
				}
			}
			status, page := w.get(t, "/sql")
			if status != 200 || !strings.Contains(page, `SELECT * FROM &#34;readings&#34; ORDER BY tsp DESC`) {
				t.Errorf("the form's default query: %d\n%s", status, page)
			}
		})
	}
	w := newWorld(t, platformtest.Console{})
	if _, page := w.get(t, "/sql"); !strings.Contains(page, "Direct SQL needs the PostgreSQL store") {
		t.Errorf("memory store: %s", page)
	}
}

// sameSite is what a browser sends with the SQL page's own form.
var sameSite = http.Header{"Sec-Fetch-Site": {"same-origin"}}

// sqlQuery runs sql on the SQL page of w's realm from the page's own
// form and returns the page.
func sqlQuery(t *testing.T, w *world, sql string, extra ...string) string {
	t.Helper()
	q := url.Values{"realm": {w.realm}, "q": {sql}}
	for i := 0; i+1 < len(extra); i += 2 {
		q.Set(extra[i], extra[i+1])
	}
	status, page := w.do(t, http.MethodGet, "/sql?"+q.Encode(), nil, sameSite)
	if status != 200 {
		t.Fatalf("%s: status %d:\n%s", sql, status, page)
	}
	return page
}

// eachSQL runs f on a platform on PostgreSQL with the console, when the
// tests have a database.
func eachSQL(t *testing.T, f func(t *testing.T, w *world, dbURL string)) {
	dbURL := storetest.PostgresURL(t)
	if dbURL == "" {
		t.Skip(storetest.PostgresEnv + " is not set: no PostgreSQL to test with (on CI PostgresURL fails instead)")
	}
	f(t, sqlWorld(t, dbURL), dbURL)
}

// TestSQLPageByteCap: an answer past store.SQLMaxBytes is cut there,
// and the page says so; a single value past it fails the statement; the
// page still answers.
func TestSQLPageByteCap(t *testing.T) {
	eachSQL(t, func(t *testing.T, w *world, _ string) {
		page := sqlQuery(t, w, "SELECT g, repeat('x', 500000) FROM generate_series(1,1000) g", "limit", "1000")
		var rows int
		i := strings.Index(page, `id="sql-count">`)
		if i < 0 {
			t.Fatalf("no row count on the page: %.2000s", page)
		}
		count := page[i+len(`id="sql-count">`):]
		count = count[:strings.Index(count, "</p>")]
		if _, err := fmt.Sscanf(count, "%d rows", &rows); err != nil || rows == 0 || rows*500000 > store.SQLMaxBytes ||
			!strings.Contains(count, "passed the page's cap of 4 MiB") || len(page) > 2*store.SQLMaxBytes {
			t.Errorf("%d rows of 500 kB shown (cap %d bytes), a page of %d bytes; the page says: %s", rows, store.SQLMaxBytes, len(page), count)
		}
		page = sqlQuery(t, w, "SELECT repeat('x', 8000000)")
		if !strings.Contains(page, `id="sql-error"`) {
			t.Errorf("a value of 8 MB: no error on the page")
		}
		if got := tableCells(t, sqlQuery(t, w, "SELECT 1"), "sql-result"); len(got) != 1 || got[0][0] != "1" {
			t.Errorf("after the cap: %v", got)
		}
	})
}

// TestSQLPagePool: a realm's SQL statements hold at most
// postgres.SQLPoolConns sessions; one more while they are all in use is
// answered busy, and once they are free the page answers again.
func TestSQLPagePool(t *testing.T) {
	eachSQL(t, func(t *testing.T, w *world, dbURL string) {
		ctx := context.Background()
		admin, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		key := time.Now().UnixNano() & 0x7fffffff
		if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", key); err != nil {
			t.Fatal(err)
		}
		held := fmt.Sprintf("SELECT pg_advisory_lock_shared(%d)::text", key)
		var wg sync.WaitGroup
		pages := make([]string, postgres.SQLPoolConns)
		for i := range pages {
			wg.Add(1)
			go func() {
				defer wg.Done()
				q := url.Values{"realm": {w.realm}, "q": {held}, "timeout": {"30"}}
				_, pages[i] = w.do(t, http.MethodGet, "/sql?"+q.Encode(), nil, sameSite)
			}()
		}
		for { // wait for both statements to wait for the lock
			var n int
			if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = $1 AND NOT granted", key).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == postgres.SQLPoolConns {
				break
			}
			runtime.Gosched()
		}
		if page := sqlQuery(t, w, "SELECT 1"); !strings.Contains(page, "busy: the realm&#39;s SQL sessions are all in use") {
			t.Errorf("a query while the sessions are in use: %.400s", page)
		}
		var sessions int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'ironflock console'").Scan(&sessions); err != nil {
			t.Fatal(err)
		}
		if sessions > postgres.SQLPoolConns {
			t.Errorf("%d console sessions, at most %d allowed", sessions, postgres.SQLPoolConns)
		}
		if _, err := admin.Exec(ctx, "SELECT pg_advisory_unlock($1)", key); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		for _, page := range pages {
			if got := tableCells(t, page, "sql-result"); len(got) != 1 {
				t.Errorf("a held statement, once free: %v", got)
			}
		}
	})
}

// TestSQLPageCrossSite: a query sent by another site (an <img>, a link),
// or by a client that says nothing of where it comes from, is refused;
// the console's own form (Sec-Fetch-Site, or Origin or Referer of its
// scheme, host and port) is served.
func TestSQLPageCrossSite(t *testing.T) {
	w := newWorld(t, platformtest.Console{})
	path := "/sql?" + url.Values{"realm": {w.realm}, "q": {"SELECT 1"}}.Encode()
	own := w.p.HTTPURL()
	for _, h := range []http.Header{
		nil,
		{"Sec-Fetch-Site": {"cross-site"}},
		{"Sec-Fetch-Site": {"same-site"}},
		{"Referer": {"http://evil.example/page"}},
		{"Origin": {"http://evil.example"}},
		{"Referer": {strings.Replace(own, "http://", "https://", 1) + "/sql"}},
	} {
		if code, _ := w.do(t, http.MethodGet, path, nil, h); code != http.StatusForbidden {
			t.Errorf("GET with %v: %d, want 403", h, code)
		}
	}
	for _, h := range []http.Header{
		{"Sec-Fetch-Site": {"same-origin"}},
		{"Sec-Fetch-Site": {"none"}},
		{"Referer": {own + "/sql"}},
		{"Origin": {own}},
	} {
		if code, _ := w.do(t, http.MethodGet, path, nil, h); code != http.StatusOK {
			t.Errorf("GET with %v: %d, want 200", h, code)
		}
	}
	if code, _ := w.get(t, "/sql"); code != http.StatusOK { // the form itself runs nothing
		t.Errorf("GET /sql: %d", code)
	}
}

// TestSQLPageRollsBack: whatever a statement does is rolled back: a
// setting changed for the session, a temporary table, a large object.
func TestSQLPageRollsBack(t *testing.T) {
	eachSQL(t, func(t *testing.T, w *world, dbURL string) {
		ctx := context.Background()
		admin, err := pgx.Connect(ctx, dbURL)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		cell := func(sql string) string {
			t.Helper()
			rows := tableCells(t, sqlQuery(t, w, sql), "sql-result")
			if len(rows) != 1 || len(rows[0]) != 1 {
				t.Fatalf("%s: %v", sql, rows)
			}
			return rows[0][0]
		}
		path := cell("SELECT current_setting('search_path')")
		if got := cell("SELECT set_config('search_path', 'pg_catalog', false)"); got != "pg_catalog" {
			t.Fatalf("set_config: %q", got)
		}
		for range 2 * postgres.SQLPoolConns {
			if got := cell("SELECT current_setting('search_path')"); got != path {
				t.Errorf("search_path %q after a statement changed it, want %q", got, path)
			}
		}
		count := func(sql string) int {
			t.Helper()
			var n int
			if err := admin.QueryRow(ctx, sql).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		objects := count("SELECT count(*) FROM pg_largeobject_metadata")
		sqlQuery(t, w, "SELECT lo_from_bytea(0, 'written through the console')")
		table := fmt.Sprintf("console_scratch_%d", time.Now().UnixNano())
		sqlQuery(t, w, "CREATE TEMP TABLE "+table+" AS SELECT 1 AS x")
		if n := count("SELECT count(*) FROM pg_largeobject_metadata"); n != objects {
			t.Errorf("%d large objects after the page's lo_from_bytea, %d before", n, objects)
		}
		if n := count("SELECT count(*) FROM pg_class WHERE relname = '" + table + "'"); n != 0 {
			t.Errorf("the page's temporary table %s stays", table)
		}
	})
}
