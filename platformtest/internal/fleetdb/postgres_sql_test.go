package fleetdb_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest"
	"github.com/flockgo/ironflock/platformtest/internal/worldtest"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

const readerTemplate = `
data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, dataType: timestamp}
        - {id: temp, dataType: numeric}
        - {id: pin, dataType: string, secret: true}
  transforms:
    - tablename: hottest
      sql: SELECT max(temp) AS temp FROM readings
      columns:
        - {id: temp, dataType: numeric}
`

// TestSQLReaderRole: the connection string of SQLURL reads its realm's
// schema, tables and views by their template names (secrets as their
// ciphertext), and nothing else: not another app's schema, not the
// store's own functions; it writes nothing, even when it asks for a
// read-write transaction.
func TestSQLReaderRole(t *testing.T) { worldtest.EachPostgres(t, testSQLReaderRole) }

func testSQLReaderRole(t *testing.T, url string) {
	p := platformtest.New(t, platformtest.WithStartTime(worldtest.T0), platformtest.WithPostgres(url, platformtest.PostgresScratch()))
	pr := p.AddProject("plant", platformtest.Key(2))
	d := pr.AddDevice("press", platformtest.Key(42))
	a := p.Install(d, p.AddApp("sensors", readerTemplate, platformtest.Key(26)), platformtest.Dev)
	b := p.Install(d, p.AddApp("other", readerTemplate, platformtest.Key(27)), platformtest.Dev)
	for _, in := range []*platformtest.Installation{a, b} {
		if err := p.InsertRows(in, "readings", map[string]any{"tsp": worldtest.T0, "temp": 21.5, "pin": "1234"}); err != nil {
			t.Fatal(err)
		}
	}
	ua, err := p.SQLURL(a.Realm())
	if err != nil {
		t.Fatal(err)
	}
	ub, err := p.SQLURL(b.Realm())
	if err != nil {
		t.Fatal(err)
	}
	if ua == ub {
		t.Fatalf("two realms share the connection string %s", ua)
	}
	conn := sqlConn(t, ua)
	ctx := worldtest.Ctx(t)
	var temp float64
	var pin string
	if err := conn.QueryRow(ctx, "SELECT temp, pin FROM readings").Scan(&temp, &pin); err != nil || temp != 21.5 || !strings.HasPrefix(pin, "ifsec:1:") {
		t.Errorf("own table by its template name: %v %v %q", err, temp, pin)
	}
	if err := conn.QueryRow(ctx, "SELECT temp FROM hottest").Scan(&temp); err != nil || temp != 21.5 {
		t.Errorf("own transform: %v %v", err, temp)
	}
	var otherSchema string
	if err := sqlConn(t, ub).QueryRow(ctx, "SELECT current_schema()").Scan(&otherSchema); err != nil {
		t.Fatal(err)
	}
	refused := func(what, sql, code string) {
		t.Helper()
		_, err := conn.Exec(ctx, sql)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != code {
			t.Errorf("%s: %v, want SQLSTATE %s", what, err, code)
		}
	}
	refused("another app's schema", "SELECT * FROM "+pgx.Identifier{otherSchema, "readings"}.Sanitize(), "42501")
	refused("insert", "INSERT INTO readings (tsp) VALUES (now())", "25006")
	refused("delete", "DELETE FROM readings", "25006")
	refused("create", "CREATE TABLE mine (a int)", "25006")
	if _, err := conn.Exec(ctx, "SET default_transaction_read_only = off"); err != nil {
		t.Fatal(err)
	}
	refused("insert in a read-write transaction", "INSERT INTO readings (tsp) VALUES (now())", "42501")
	refused("create in a read-write transaction", "CREATE TABLE mine (a int)", "42501")
	refused("the store's functions", "SELECT "+pgx.Identifier{strings.TrimSuffix(otherSchema, "realm_2_27_dev") + "ironflock"}.Sanitize()+".ifl_num_text(1)", "42501")

	mem := platformtest.New(t)
	in := mem.Install(mem.AddProject("p").AddDevice("d"), mem.AddApp("a", readerTemplate), platformtest.Dev)
	if _, err := mem.SQLURL(in.Realm()); err == nil || !strings.Contains(err.Error(), "needs the PostgreSQL store") {
		t.Errorf("SQLURL on the memory store: %v", err)
	}
}
