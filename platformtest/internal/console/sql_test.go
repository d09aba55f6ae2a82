package console_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/platformtest"
)

// postgresEnv names the variable with the connection string of the
// database the PostgreSQL tests use (docs/testing.md; .ci/run sets it). Unset,
// they are not run.
const postgresEnv = "IRONFLOCK_TEST_POSTGRES"

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
	dbURL := os.Getenv(postgresEnv)
	if dbURL != "" {
		t.Run("store=postgres", func(t *testing.T) {
			w := sqlWorld(t, dbURL)
			query := func(sql string, extra ...string) string {
				t.Helper()
				q := url.Values{"realm": {w.realm}, "q": {sql}}
				for i := 0; i+1 < len(extra); i += 2 {
					q.Set(extra[i], extra[i+1])
				}
				status, page := w.get(t, "/sql?"+q.Encode())
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
