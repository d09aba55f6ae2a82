package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/template"
)

// keptPostgres opens, n times one after the other, a PostgreSQL store
// that keeps its schemas and roles (no scratch store), under a prefix of
// the test's own; what it made is dropped when the test ends. Each DB
// knows rolesRealm with rolesTemplate; use is called with it and closed
// after.
func keptPostgres(t *testing.T, url string, n int, use func(i int, db *fleetdb.DB)) {
	t.Helper()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	prefix := "ifr" + hex.EncodeToString(b) + "_"
	tpl, _, err := template.ParseData([]byte(rolesTemplate))
	if err != nil {
		t.Fatal(err)
	}
	open := func() (store.Rows, *fleetdb.DB) {
		s, err := New(context.Background(), Config{URL: url, Prefix: prefix, MaxConns: 4})
		if err != nil {
			t.Fatalf("$%s: %v", storetest.PostgresEnv, err)
		}
		return s, fleetdb.New(fleetdb.Config{Store: s, Lookup: func(name string) (realm.Info, *template.DataTemplate, error) {
			if name != rolesRealm.Name {
				return realm.Info{}, nil, fmt.Errorf("no realm %q", name)
			}
			return rolesRealm, tpl, nil
		}})
	}
	t.Cleanup(func() {
		s, _ := open()
		ps := s.(*pgStore)
		ctx := context.Background()
		var schemas, roles []string
		_ = ps.pool.QueryRow(ctx, "SELECT coalesce(array_agg(nspname), '{}') FROM pg_namespace WHERE starts_with(nspname, $1)", prefix).Scan(&schemas)
		_ = ps.pool.QueryRow(ctx, "SELECT coalesce(array_agg(rolname), '{}') FROM pg_roles WHERE starts_with(rolname, $1)", prefix).Scan(&roles)
		if err := ps.dropSchemas(ctx, schemas, roles); err != nil {
			t.Error(err)
		}
		_ = s.Close()
	})
	for i := range n {
		_, db := open()
		use(i, db)
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPostgresReaderKept: the read-only role of direct SQL survives a
// restart of its store, with a store user that may create roles but is no
// superuser ($IRONFLOCK_TEST_POSTGRES's, as docs/postgres.md recommends):
// the second start gives it a new password instead of failing on an ALTER
// ROLE only a superuser may run. What the role changed itself (its own
// default_transaction_read_only, per role and per database) and the large
// objects it made are gone after the restart; it still reads and cannot
// write.
func TestPostgresReaderKept(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var urls []string
	keptPostgres(t, url, 3, func(i int, db *fleetdb.DB) {
		if err := db.InsertRows(ctx, rolesRealm.Name, "credentials", rolesWriter, map[string]any{"tsp": time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC).UnixMilli(), "machine": "m", "state": "ok"}); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		u, err := db.SQLURL(ctx, rolesRealm.Name)
		if err != nil {
			t.Fatalf("start %d: the read-only role: %v", i+1, err)
		}
		urls = append(urls, u)
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatalf("start %d: connect as the read-only role: %v", i+1, err)
		}
		defer conn.Close(ctx)
		var readOnly string
		var n, los int
		if err := conn.QueryRow(ctx, "SELECT current_setting('default_transaction_read_only'), (SELECT count(*) FROM credentials), "+
			"(SELECT count(*) FROM pg_largeobject_metadata WHERE lomowner = current_user::regrole)").Scan(&readOnly, &n, &los); err != nil {
			t.Fatalf("start %d: %v", i+1, err)
		}
		if readOnly != "on" || n != i+1 || los != 0 {
			t.Errorf("start %d: default_transaction_read_only %s (want on), %d rows (want %d), %d large objects of the role (want 0)", i+1, readOnly, n, i+1, los)
		}
		if _, err := conn.Exec(ctx, "BEGIN READ WRITE; INSERT INTO credentials (tsp, machine) VALUES (now(), 'x'); COMMIT"); err == nil || !strings.Contains(err.Error(), "42501") {
			t.Errorf("start %d: the read-only role wrote a row: %v", i+1, err)
		}
		_, _ = conn.Exec(ctx, "ROLLBACK")
		// What PostgreSQL lets any role do, and what the next start undoes.
		for _, q := range []string{
			"SET default_transaction_read_only = off",
			"ALTER ROLE CURRENT_USER SET default_transaction_read_only = off",
			"ALTER ROLE CURRENT_USER IN DATABASE " + qi(conn.Config().Database) + " SET default_transaction_read_only = off",
			"SELECT lo_from_bytea(0, 'kept?')",
		} {
			if _, err := conn.Exec(ctx, q); err != nil {
				t.Fatalf("start %d: %s: %v", i+1, q, err)
			}
		}
	})
	if len(urls) != 3 || urls[0] == urls[1] || urls[1] == urls[2] {
		t.Errorf("each start gives the role a new password: %q", urls)
	}
}

// rolesTemplate is the data template of the restarts: a table with an
// entity key.
const rolesTemplate = `
data:
  tables:
    - tablename: credentials
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: Time, dataType: timestamp}
        - {id: machine, name: Machine, dataType: string}
        - {id: state, name: State, dataType: string}
`

// rolesRealm is the realm of the restarts and rolesWriter the device
// their inserts write as.
var (
	rolesRealm  = realm.NewInfo(2, 26, "DEV")
	rolesWriter = fleetdb.Writer{DeviceKey: 42, Serial: "06a0bf96-a539-4d6a-8471-ac7adc67616e", App: "interop"}
)
