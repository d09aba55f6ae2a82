package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/flockgo/ironflock/internal/wire"
)

// postgresURL returns $IRONFLOCK_TEST_POSTGRES. Unset, the test fails on
// CI (CI=true, where .ci/run sets it) and is not run elsewhere ("" and a
// log line).
func postgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv(postgresEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("$%s is not set (CI=true: the PostgreSQL tests must run)", postgresEnv)
		}
		t.Log("not run: $" + postgresEnv + " is not set")
	}
	return base
}

// freshOwner makes, on the server of base, a role of the test's own as
// docs/postgres.md recommends for flockd -db (LOGIN CREATEDB CREATEROLE,
// no superuser) and a database it owns, and returns the database's URL
// with that role. The database and every role named after it (the
// owner, the read-only roles flockd made) are dropped when the test ends.
func freshOwner(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "flockd_" + hex.EncodeToString(b)
	owner, password := name+"_owner", hex.EncodeToString(b)+"pw"
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		t.Fatalf("$%s: %v", postgresEnv, err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE ROLE "+owner+" LOGIN CREATEDB CREATEROLE NOSUPERUSER PASSWORD '"+password+"'"); err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(owner, password)
	ownerConn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	_, err = ownerConn.Exec(ctx, "CREATE DATABASE "+name)
	_ = ownerConn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ownerURL := u.String()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := dropDatabase(ctx, base, ownerURL, name); err != nil {
			t.Error(err)
		}
		admin, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer admin.Close(ctx)
		var roles []string
		_ = admin.QueryRow(ctx, "SELECT coalesce(array_agg(rolname ORDER BY rolname = $2), '{}') FROM pg_roles WHERE starts_with(rolname, $1)", name+"_", owner).Scan(&roles)
		for _, r := range roles { // the owner last
			if _, err := admin.Exec(ctx, "DROP ROLE "+pgx.Identifier{r}.Sanitize()); err != nil {
				t.Error(err)
			}
		}
	})
	u.Path = "/" + name
	return u.String()
}

// dropDatabase drops the database name as the role of asURL (on the
// database of base's server), with FORCE, which ends only sessions of
// that role: one of a read-only role still ending (a client's close does
// not wait for its server process, nor does the kill of a flockd whose
// pool was connecting) refuses the drop, so it waits until those are gone
// and tries again.
func dropDatabase(ctx context.Context, base, asURL, name string) error {
	u, err := url.Parse(asURL)
	if err != nil {
		return err
	}
	for {
		if err := awaitOtherRolesGone(ctx, base, name, u.User.Username()); err != nil {
			return err
		}
		c, err := pgx.Connect(ctx, asURL)
		if err != nil {
			return err
		}
		_, err = c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)")
		_ = c.Close(ctx)
		var pe *pgconn.PgError
		if !errors.As(err, &pe) || pe.Code != "42501" || ctx.Err() != nil {
			return err
		}
	}
}

// awaitOtherRolesGone waits until no session of a role other than owner
// is connected to the database name.
func awaitOtherRolesGone(ctx context.Context, base, name, owner string) error {
	admin, err := pgx.Connect(ctx, base)
	if err != nil {
		return err
	}
	defer admin.Close(ctx)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		var n int
		if err := admin.QueryRow(ctx, "SELECT count(*) FROM pg_stat_activity WHERE datname = $1 AND usename <> $2", name, owner).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("database %s: %d sessions of other roles than %s still connected: %w", name, n, owner, ctx.Err())
		case <-tick.C:
		}
	}
}

// restartConfig is a configuration with one installation seeding rows
// into a table with an entity key (a seed row inserted again is a
// conflict), a plain view and a materialized transform without schedule.
const restartConfig = `projects:
  - name: plant
    devices:
      - name: press
apps:
  - name: sensors
    data_template: |
      data:
        tables:
          - tablename: readings
            maintainLatestFlagFor: [sensor]
            columns:
              - {id: tsp, dataType: timestamp}
              - {id: sensor, dataType: string}
              - {id: temp, dataType: numeric}
        transforms:
          - tablename: per_sensor
            materialize: true
            sql: SELECT sensor, count(*) AS n FROM readings GROUP BY sensor
            columns:
              - {id: sensor, dataType: string}
              - {id: n, dataType: bigint}
          - tablename: hottest
            sql: SELECT max(temp) AS temp FROM readings
            columns:
              - {id: temp, dataType: numeric}
installations:
  - project: plant
    device: press
    app: sensors
    rows:
      readings:
        - {tsp: "2026-01-01T10:00:00Z", sensor: s1, temp: 20}
        - {tsp: "2026-01-01T10:01:00Z", sensor: s1, temp: 21}
        - {tsp: "2026-01-01T10:00:00Z", sensor: s2, temp: 30}
`

// restartRun is one start of flockd -db on the test's database.
type restartRun struct {
	t    *testing.T
	ctx  context.Context
	env  envFile
	proc *child
}

// startDB starts flockd (a child process) with config and data folder
// dir on db and returns once it serves.
func startDB(t *testing.T, ctx context.Context, dir, db string) *restartRun {
	t.Helper()
	envPath := filepath.Join(dir, "env.json")
	_ = os.Remove(envPath)
	proc := startChild(t, []string{"-config", filepath.Join(dir, "flockd.yml"), "-data", filepath.Join(dir, "data"),
		"-db", db, "-listen", "127.0.0.1:0", "-env-file", envPath})
	return &restartRun{t: t, ctx: ctx, env: readEnvFile(t, envPath), proc: proc}
}

// sql answers query as the read-only role of the run's app backend.
func (r *restartRun) sql(query string) (string, error) {
	r.t.Helper()
	if len(r.env.SQL) != 1 {
		r.t.Fatalf("env file sql: %+v", r.env.SQL)
	}
	conn, err := pgx.Connect(r.ctx, r.env.SQL[0].URL)
	if err != nil {
		return "", fmt.Errorf("connect as the read-only role: %w", err)
	}
	defer conn.Close(r.ctx)
	var got string
	err = conn.QueryRow(r.ctx, query).Scan(&got)
	return got, err
}

// misbehave, as the read-only role, tries to write a row in a read-write
// transaction (refused: it may only SELECT) and makes its sessions
// read-write by default (PostgreSQL lets a role change its own settings;
// the next start resets them).
func (r *restartRun) misbehave() {
	r.t.Helper()
	conn, err := pgx.Connect(r.ctx, r.env.SQL[0].URL)
	if err != nil {
		r.t.Fatalf("connect as the read-only role: %v", err)
	}
	defer conn.Close(r.ctx)
	if _, err := conn.Exec(r.ctx, "SET default_transaction_read_only = off"); err != nil {
		r.t.Fatal(err)
	}
	if _, err := conn.Exec(r.ctx, "INSERT INTO readings (tsp, sensor) VALUES (now(), 'x')"); err == nil || !strings.Contains(err.Error(), "42501") {
		r.t.Errorf("the read-only role wrote a row: %v", err)
	}
	if _, err := conn.Exec(r.ctx, "ALTER ROLE CURRENT_USER SET default_transaction_read_only = off"); err != nil {
		r.t.Fatal(err)
	}
}

// history reads a table or transform over the wire as the device of env
// (credentials of an earlier start).
func (r *restartRun) history(c *client.Client, name string) string {
	r.t.Helper()
	res, err := c.Call(r.ctx, wire.HistoryProc(name), nil, wamp.List{map[string]any{"limit": 100}}, nil, nil)
	if err != nil {
		r.t.Fatalf("%s: %v", wire.HistoryProc(name), err)
	}
	b, _ := json.Marshal(res.Arguments)
	return string(b)
}

// TestDBRestarts: flockd -db starts ten times on one database with the
// role docs/postgres.md recommends (LOGIN CREATEDB CREATEROLE, no
// superuser), each time with a materialized transform filled (after the
// seed rows went in), the seed rows once and the rows appended before,
// the device credentials of the first start, the transforms answering,
// and the read-only role reading and not writing.
func TestDBRestarts(t *testing.T) {
	base := postgresURL(t)
	if base == "" {
		return
	}
	db := freshOwner(t, base)
	dir := t.TempDir()
	writeConfig(t, dir, restartConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var first envFile
	for i := range 10 {
		r := startDB(t, ctx, dir, db)
		if i == 0 {
			first = r.env
		}
		c := joinWithEnv(t, r.env.WSURL, first.Installations[0].Env) // the first start's credentials
		n := 3 + i                                                   // the seed rows once, one appended per start
		if got, err := r.sql("SELECT count(*)::text FROM readings"); err != nil || got != fmt.Sprint(n) {
			t.Errorf("start %d: %s rows (%v), want %d", i+1, got, err, n)
		}
		wantPerSensor := fmt.Sprintf("s1=%d,s2=1", 2+i)
		if got, err := r.sql("SELECT string_agg(sensor || '=' || n, ',' ORDER BY sensor) FROM per_sensor"); err != nil || got != wantPerSensor {
			t.Errorf("start %d: the materialized per_sensor over SQL: %q (%v), want %q", i+1, got, err, wantPerSensor)
		}
		if got := r.history(c, "per_sensor"); !strings.Contains(got, fmt.Sprintf(`"n":%d`, 2+i)) {
			t.Errorf("start %d: per_sensor over the wire: %s", i+1, got)
		}
		if got := r.history(c, "hottest"); !strings.Contains(got, `"temp":30`) {
			t.Errorf("start %d: hottest over the wire: %s", i+1, got)
		}
		if got, err := r.sql("SELECT current_setting('default_transaction_read_only')"); err != nil || got != "on" {
			t.Errorf("start %d: the read-only role's sessions: default_transaction_read_only %s (%v)", i+1, got, err)
		}
		r.misbehave()
		// Appended with the first start's credentials.
		swarm, app := first.Installations[0].Env[wire.EnvSwarmKey], first.Installations[0].Env[wire.EnvAppKey]
		proc := "append." + swarm + "." + app + ".readings"
		if _, err := c.Call(ctx, proc, nil, wamp.List{map[string]any{"tsp": time.Date(2026, 2, 1, 0, i, 0, 0, time.UTC).UnixMilli(), "sensor": "s1", "temp": 1}}, nil, nil); err != nil {
			t.Fatalf("start %d: %s: %v", i+1, proc, err)
		}
		_ = c.Close()
		r.proc.kill()
		if strings.Contains(r.proc.logs.String(), "level=ERROR") {
			t.Errorf("start %d logged an error:\n%s", i+1, r.proc.logs)
		}
	}
}

// runToEnd runs flockd with args in a child process until it ends and
// returns its exit code and log.
func runToEnd(t *testing.T, args ...string) (int, string) {
	t.Helper()
	js, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), childStartBound)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childArgs+"="+string(js))
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("flockd did not stop within %v (it serves?):\n%s", childStartBound, out)
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// TestDBRefusesAFailingTransform: after a good start, a configuration
// whose transform names a missing table stops flockd at start with a
// non-zero exit and a message naming the app, the transform and the
// cause, before it logs that it listens; the next start with the good
// configuration serves the rows and the transforms as before.
func TestDBRefusesAFailingTransform(t *testing.T) {
	base := postgresURL(t)
	if base == "" {
		return
	}
	db := freshOwner(t, base)
	dir := t.TempDir()
	writeConfig(t, dir, restartConfig)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	r := startDB(t, ctx, dir, db)
	r.proc.kill()

	writeConfig(t, dir, strings.Replace(restartConfig, "SELECT max(temp) AS temp FROM readings", "SELECT max(temp) AS temp FROM nosuch", 1))
	code, logs := runToEnd(t, "-config", filepath.Join(dir, "flockd.yml"), "-data", filepath.Join(dir, "data"), "-db", db, "-listen", "127.0.0.1:0")
	if code == 0 {
		t.Errorf("flockd with a failing transform exited 0:\n%s", logs)
	}
	for _, want := range []string{`app "sensors"`, `transform "hottest"`, `relation "nosuch" does not exist`, "line 1, column"} {
		if !strings.Contains(logs, want) {
			t.Errorf("the refusal does not say %s:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, "listening") || strings.Contains(logs, "realm up") {
		t.Errorf("a refused start listened or served a realm:\n%s", logs)
	}

	writeConfig(t, dir, restartConfig)
	r = startDB(t, ctx, dir, db)
	if strings.Contains(r.proc.logs.String(), "new release") {
		t.Errorf("the refused configuration was kept as a release:\n%s", r.proc.logs)
	}
	if got, err := r.sql("SELECT count(*)::text FROM readings"); err != nil || got != "3" {
		t.Errorf("rows after the refused start: %s (%v), want 3", got, err)
	}
	if got, err := r.sql("SELECT temp::text FROM hottest"); err != nil || got != "30" {
		t.Errorf("hottest after the refused start: %s (%v), want 30", got, err)
	}
	c := joinWithEnv(t, r.env.WSURL, r.env.Installations[0].Env)
	if got := r.history(c, "per_sensor"); !strings.Contains(got, `"n":2`) {
		t.Errorf("per_sensor after the refused start: %s", got)
	}
}
