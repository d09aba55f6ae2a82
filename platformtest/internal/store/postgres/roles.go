// This file holds direct SQL on the PostgreSQL store (postgres.go): per
// realm a role that may log in and read the realm's schema and nothing
// else (<schema>_reader: CONNECT on the database, USAGE on the schema,
// SELECT on its tables and views, now and later; its sessions are
// read-only and start in the schema), its connection string, and a
// read-only query for the console's SQL page, run as that role with a row
// limit and a statement_timeout. The role is made the first time it is
// asked for, with a fresh password each time the store starts. It serves
// no URI.

package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgReader is the read-only role of a realm.
type pgReader struct {
	role     string
	password string
}

// readerRole is the name of a realm's read-only role: roles belong to
// the whole server, so it names the database too.
func (t *pgTables) readerRole() string { return t.s.readerRole(t.schema) }

// readerRole is the read-only role of a realm's schema.
func (s *pgStore) readerRole(schema string) string {
	return objName(s.prefix+s.conn.Database+"_"+strings.TrimPrefix(schema, s.prefix), "_reader")
}

// grantReader lets an existing read-only role read the tables a
// migration made (a role made in an earlier run).
func (t *pgTables) grantReader(ctx context.Context, tx pgx.Tx) error {
	var exists bool
	if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)", t.readerRole()).Scan(&exists); err != nil || !exists {
		return err
	}
	_, err := tx.Exec(ctx, "GRANT SELECT ON ALL TABLES IN SCHEMA "+qi(t.schema)+" TO "+qi(t.readerRole()))
	return err
}

// ensureReader makes the realm's read-only role (or gives it a new
// password) once per store.
func (t *pgTables) ensureReader(ctx context.Context) (*pgReader, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.reader != nil {
		return t.reader, nil
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	r := &pgReader{role: t.readerRole(), password: hex.EncodeToString(b)}
	err := retryCatalogRace(ctx, func() error { return t.makeReader(ctx, r) })
	if err != nil {
		return nil, fmt.Errorf("postgres: the read-only role of %s (the store's user must be allowed to create roles): %w", t.schema, err)
	}
	t.s.mu.Lock()
	t.s.roles = append(t.s.roles, r.role)
	t.s.mu.Unlock()
	t.reader = r
	return r, nil
}

// retryCatalogRace runs run again, up to five times, while it fails on a
// shared catalog row another session updated at the same moment
// (SQLSTATE XX000 "tuple concurrently updated": the database's ACL, which
// GRANT CONNECT and DROP OWNED BY of every store on the server change).
func retryCatalogRace(ctx context.Context, run func() error) error {
	var err error
	for range 5 {
		err = run()
		var st interface{ SQLState() string }
		if err == nil || !errors.As(err, &st) || st.SQLState() != "XX000" || !strings.Contains(err.Error(), "concurrently updated") {
			return err
		}
		if ctx.Err() != nil {
			return err
		}
	}
	return err
}

// makeReader makes the read-only role r of the realm, or gives it r's
// password and the privileges of a reader, in one transaction.
func (t *pgTables) makeReader(ctx context.Context, r *pgReader) error {
	role, schema := qi(r.role), qi(t.schema)
	return pgx.BeginFunc(ctx, t.s.pool, func(tx pgx.Tx) error {
		// Roles belong to the whole server: serialise their creation.
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext($1))", r.role); err != nil {
			return err
		}
		attrs, err := t.readerAttributes(ctx, tx, r.role)
		if err != nil {
			return err
		}
		db := qi(t.s.conn.Database)
		stmts := []string{
			attrs + " PASSWORD " + ql(r.password),
			// Membership lets a store's user without SUPERUSER drop what
			// the role owns (DROP OWNED BY) at each start and when a
			// scratch store closes.
			"GRANT " + role + " TO CURRENT_USER",
			// What the role changed itself in an earlier run goes: its
			// settings (ALTER ROLE CURRENT_USER SET …, which PostgreSQL
			// lets every role do) and what it owns (large objects, which
			// PostgreSQL lets every role create), with its privileges,
			// granted again below.
			"ALTER ROLE " + role + " RESET ALL",
			"ALTER ROLE " + role + " IN DATABASE " + db + " RESET ALL",
			"DROP OWNED BY " + role,
			"ALTER ROLE " + role + " SET search_path TO " + t.searchPath(),
			"ALTER ROLE " + role + " SET default_transaction_read_only TO on",
			"GRANT CONNECT ON DATABASE " + db + " TO " + role,
			"GRANT USAGE ON SCHEMA " + schema + " TO " + role,
			"GRANT SELECT ON ALL TABLES IN SCHEMA " + schema + " TO " + role,
			"ALTER DEFAULT PRIVILEGES IN SCHEMA " + schema + " GRANT SELECT ON TABLES TO " + role,
		}
		if t.s.tsdb != nil {
			stmts = append(stmts, "GRANT USAGE ON SCHEMA "+qi(t.s.tsdb.schema)+" TO "+role)
		}
		for _, q := range stmts {
			if _, err := tx.Exec(ctx, q); err != nil {
				return fmt.Errorf("%s: %w", strings.SplitN(q, " PASSWORD ", 2)[0], err)
			}
		}
		return nil
	})
}

// readerAttributes returns the statement, without its password, that
// makes the read-only role or gives it the attributes of one. A role that
// exists is altered naming only what a store's user with CREATEROLE and
// without SUPERUSER may set (PostgreSQL refuses such a user an ALTER ROLE
// that names SUPERUSER, REPLICATION or BYPASSRLS, even to take them
// away); one that holds any of those (made by a superuser) loses them,
// which only a superuser may do.
func (t *pgTables) readerAttributes(ctx context.Context, tx pgx.Tx, role string) (string, error) {
	const plain = " LOGIN NOCREATEDB NOCREATEROLE NOINHERIT"
	var super, repl, bypass bool
	err := tx.QueryRow(ctx, "SELECT rolsuper, rolreplication, rolbypassrls FROM pg_roles WHERE rolname = $1", role).Scan(&super, &repl, &bypass)
	if errors.Is(err, pgx.ErrNoRows) {
		return "CREATE ROLE " + qi(role) + plain + " NOSUPERUSER NOREPLICATION NOBYPASSRLS", nil
	}
	if err != nil {
		return "", err
	}
	q := "ALTER ROLE " + qi(role) + plain
	if super {
		q += " NOSUPERUSER"
	}
	if repl {
		q += " NOREPLICATION"
	}
	if bypass {
		q += " NOBYPASSRLS"
	}
	return q, nil
}

// ReaderURL returns the connection string of the realm's read-only role:
// the store's server and database, the role and its password.
func (t *pgTables) ReaderURL(ctx context.Context) (string, error) {
	r, err := t.ensureReader(ctx)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(r.role, r.password), Path: "/" + t.s.conn.Database}
	q := url.Values{}
	if strings.HasPrefix(t.s.conn.Host, "/") {
		q.Set("host", t.s.conn.Host) // a Unix socket folder
		q.Set("port", strconv.Itoa(int(t.s.conn.Port)))
	} else {
		u.Host = net.JoinHostPort(t.s.conn.Host, strconv.Itoa(int(t.s.conn.Port)))
	}
	if mode := sslMode(t.s.cfg.URL); mode != "" {
		q.Set("sslmode", mode)
	} else if t.s.conn.TLSConfig == nil {
		q.Set("sslmode", "disable")
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// sslMode returns the sslmode of a connection string, "" when it names
// none.
func sslMode(conn string) string {
	if u, err := url.Parse(conn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		return u.Query().Get("sslmode")
	}
	for _, kv := range strings.Fields(conn) {
		if v, ok := strings.CutPrefix(kv, "sslmode="); ok {
			return v
		}
	}
	return ""
}

// sqlText renders a value of a direct SQL answer; nil for NULL.
func sqlText(v any) *string {
	var s string
	switch x := v.(type) {
	case nil:
		return nil
	case time.Time:
		s = x.UTC().Format(time.RFC3339Nano)
	case map[string]any, []any:
		b, _ := json.Marshal(x)
		s = string(b)
	default:
		switch y := pgValue(v).(type) {
		case float64:
			s = strconv.FormatFloat(y, 'g', -1, 64)
		default:
			s = fmt.Sprint(y)
		}
	}
	return &s
}
