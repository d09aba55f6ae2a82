//go:build !race

// This file holds the scenario .ci/run runs (issue 37's "Done when"):
// flocksim against a flockd it starts, with the data folder and then with
// PostgreSQL, a ramp, a kill -9 storm, and every acknowledged row read
// back. It is left out of -race builds: the race detector makes thousands
// of clients in one process too slow to join within minutes on a small
// machine, so .ci/run runs it on its own, without -race
// (go test -count=1 -run TestCIScenario ./cmd/flocksim/).

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// postgresEnv names the test database's URL (.ci/run sets it).
const postgresEnv = "IRONFLOCK_TEST_POSTGRES"

// ciScenario is the scenario of both phases: n devices appending a row
// every 2 s, serving and calling a device function, joined at 1000/s,
// a hold, a kill -9 of flockd and its restart, a hold after it.
const ciScenario = `flockd:
  bin: %s
  args: [%s]
fleet:
  devices: %d
device:
  append:
    table: samples
    every: 2s
    values: {tsp: now, seq: seq, value: random 0 100}
  serve: {function: echo}
  call: {function: echo, every: 20s}
verify: true
stages:
  - {name: ramp, ramp: 1000, timeout: 3m}
  - {name: hold, hold: 4s}
  - {name: storm, storm: kill, timeout: 3m}
  - {name: after, hold: 4s}
  - {name: stop, stop: true}
`

// TestCIScenario runs the scenario with flockd -data (2,000 devices) and,
// when IRONFLOCK_TEST_POSTGRES names a server, with flockd -db (1,000
// devices), and checks the counts: every device joined, every device back
// after the storm, every acknowledged row stored exactly once.
func TestCIScenario(t *testing.T) {
	bin := builtFlockd(t)
	t.Run("data", func(t *testing.T) {
		runCIScenario(t, bin, 2000, "-no-record, -data, "+filepath.Join(t.TempDir(), "data"))
	})
	t.Run("postgres", func(t *testing.T) {
		base := os.Getenv(postgresEnv)
		if base == "" {
			if os.Getenv("CI") == "true" {
				t.Fatalf("$%s is not set (CI=true: the PostgreSQL phase must run)", postgresEnv)
			}
			t.Log("not run: $" + postgresEnv + " is not set")
			return
		}
		runCIScenario(t, bin, 1000, "-no-record, -db, '"+freshDatabase(t, base)+"'")
	})
}

// runCIScenario runs the scenario for n devices with flockd's args and
// checks its summary.
func runCIScenario(t *testing.T, bin string, n int, args string) {
	dir := t.TempDir()
	scPath, outPath := filepath.Join(dir, "scenario.yml"), filepath.Join(dir, "summary.json")
	if err := os.WriteFile(scPath, []byte(fmt.Sprintf(ciScenario, bin, args, n)), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	var stderr strings.Builder
	err := run(ctx, []string{"-scenario", scPath, "-out", outPath, "-live", "0"}, io.Discard, &stderr)
	t.Log(stderr.String())
	b, rerr := os.ReadFile(outPath)
	if err != nil || rerr != nil {
		t.Fatalf("flocksim: %v (summary: %v)", err, rerr)
	}
	var sum summary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	stage := map[string]stageReport{}
	for _, st := range sum.Stages {
		stage[st.Name] = st
	}
	if r := stage["ramp"]; r.Joined != n || r.Missing != 0 || r.Joins != int64(n) {
		t.Errorf("ramp: joined %d, missing %d, joins %d; want all %d", r.Joined, r.Missing, r.Joins, n)
	}
	if r := stage["storm"]; r.Joined != n || r.Missing != 0 || r.Joins != int64(n) {
		t.Errorf("storm: %d back (joined %d, missing %d); want all %d", r.Joins, r.Joined, r.Missing, n)
	}
	for _, name := range []string{"hold", "after"} {
		if r := stage[name]; r.Appends == 0 || r.Failed != 0 {
			t.Errorf("%s: %d appends acknowledged, %d failures %v; want appends and no failure", name, r.Appends, r.Failed, r.Errors)
		}
	}
	v := sum.Verify
	if v == nil {
		t.Fatal("no read-back in the summary")
	}
	acked := sum.Appends
	if v.Devices != n || v.Acked != acked || v.Acked == 0 || v.Lost != 0 || v.Duplicated != 0 || len(v.Failures) != 0 || v.Stored != v.Acked+v.Unacked {
		t.Errorf("read-back %+v; want every one of %d acknowledged appends of %d devices stored once", *v, acked, n)
	}
	t.Logf("%d devices: ramp %.1fs, storm back after %.1fs (flockd's start %.1fs), %d rows acknowledged and read back",
		n, stage["ramp"].Seconds, stage["storm"].BackSeconds, stage["storm"].FlockdRestartSeconds, v.Acked)
}

// freshDatabase makes, on the server of base, a role of the test's own as
// docs/postgres.md recommends for flockd -db (LOGIN CREATEDB CREATEROLE)
// and a database it owns, returns the database's URL with that role, and
// drops both, and the read-only roles flockd made, when the test ends.
func freshDatabase(t *testing.T, base string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	name := "flocksim_" + hex.EncodeToString(b)
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
	ownerURL := u.String()
	oc, err := pgx.Connect(ctx, ownerURL)
	if err != nil {
		t.Fatal(err)
	}
	_, err = oc.Exec(ctx, "CREATE DATABASE "+name)
	_ = oc.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if c, err := pgx.Connect(ctx, ownerURL); err != nil {
			t.Error(err)
		} else {
			if _, err := c.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
				t.Error(err)
			}
			_ = c.Close(ctx)
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
