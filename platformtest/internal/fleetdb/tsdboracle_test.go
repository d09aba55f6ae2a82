package fleetdb

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
)

// oracleEnv names the variable that holds the folder of the TimescaleDB
// oracle (tsdboracle/, after npm ci there). Set, TestTimescaleOracle runs
// (with $IRONFLOCK_TEST_POSTGRES) and fails when the oracle cannot start;
// unset it is not run, unless CI=true, where that is a failure.
const oracleEnv = "IRONFLOCK_TSDB_ORACLE"

// oracle is a running TimescaleDB (PGlite with TimescaleDB, over a
// socket) and flockd's PostgreSQL server, each with a connection.
type oracle struct {
	tsdb, pg *pgx.Conn
	schema   string // flockd's scratch schema on pg, quoted
	pgURL    string
	version  string
}

// startOracle starts the oracle's node server and connects to it and to
// the PostgreSQL server of the tests, where it makes a scratch schema
// holding the store's own time_bucket.
func startOracle(t *testing.T) *oracle {
	t.Helper()
	dir, pgURL := os.Getenv(oracleEnv), storetest.PostgresURL(t)
	if dir == "" || pgURL == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("CI=true: the TimescaleDB oracle must run: set $%s (npm ci in tsdboracle/) and $%s", oracleEnv, postgresEnv)
		}
		t.Logf("$%s or $%s is not set: the comparison with TimescaleDB is not run", oracleEnv, postgresEnv)
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command("node", filepath.Join(dir, "server.mjs"))
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("start the oracle (node %s/server.mjs): %v", dir, err)
	}
	t.Cleanup(func() {
		_ = stdin.Close() // the server ends when its input closes
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if line := sc.Text(); strings.HasPrefix(line, "READY ") {
				ready <- line
			}
		}
		close(ready)
	}()
	o := &oracle{pgURL: pgURL}
	var port string
	select {
	case line, ok := <-ready:
		if !ok {
			t.Fatalf("the oracle (node %s/server.mjs) ended before it listened; is npm ci done there?", dir)
		}
		f := strings.Fields(line)
		port, o.version = f[1], f[len(f)-1]
	case <-ctx.Done():
		t.Fatal("the oracle did not listen within 2 minutes")
	}
	cfg, err := pgx.ParseConfig("postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol // one statement at a time
	if o.tsdb, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		t.Fatalf("connect to the oracle: %v", err)
	}
	t.Cleanup(func() { _ = o.tsdb.Close(context.Background()) })
	if o.pg, err = pgx.Connect(ctx, pgURL); err != nil {
		t.Fatalf("$%s: %v", postgresEnv, err)
	}
	t.Cleanup(func() { _ = o.pg.Close(context.Background()) })
	name := fmt.Sprintf("tsdboracle_%d_%d", os.Getpid(), time.Now().UnixNano())
	o.schema = qi(name)
	for _, q := range []string{"CREATE SCHEMA " + o.schema, postgres.TimeBucketSQL(o.schema)} {
		if _, err := o.pg.Exec(ctx, q); err != nil {
			t.Fatalf("%.80s: %v", q, err)
		}
	}
	t.Cleanup(func() { _, _ = o.pg.Exec(context.Background(), "DROP SCHEMA "+o.schema+" CASCADE") })
	for _, c := range []*pgx.Conn{o.tsdb, o.pg} {
		if _, err := c.Exec(ctx, "SET TIME ZONE 'Europe/Berlin'"); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

// answer is what one side said: a value as text, or an error.
type answer struct {
	val string
	err string
}

func (a answer) String() string {
	if a.err != "" {
		return "error: " + a.err
	}
	return a.val
}

// evaluate runs sql (with $1 the case's text) once per case, in one
// statement when it can; a statement that fails is run case by case, so
// that each case gets its own answer.
func evaluate(ctx context.Context, c *pgx.Conn, sql string, cases []string) []answer {
	out := make([]answer, len(cases))
	batch := "SELECT (" + strings.ReplaceAll(sql, "$1", "c.v") + ")::text FROM unnest($1::text[]) WITH ORDINALITY AS c(v, i) ORDER BY c.i"
	rows, err := c.Query(ctx, batch, cases)
	if err == nil {
		var vals []*string
		vals, err = pgx.CollectRows(rows, pgx.RowTo[*string])
		if err == nil && len(vals) == len(cases) {
			for i, v := range vals {
				if v != nil {
					out[i].val = *v
				} else {
					out[i].val = "NULL"
				}
			}
			return out
		}
	}
	for i, v := range cases {
		var s *string
		if err := c.QueryRow(ctx, "SELECT ("+sql+")::text", v).Scan(&s); err != nil {
			out[i].err = err.Error()
		} else if s != nil {
			out[i].val = *s
		} else {
			out[i].val = "NULL"
		}
	}
	return out
}

// qi quotes an identifier.
func qi(name string) string { return pgx.Identifier{name}.Sanitize() }
