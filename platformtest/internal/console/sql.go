// This file serves the SQL page (docs/postgres.md):
//
//	GET /sql  a form (realm, query, row limit, time limit) and, with ?q=,
//	          the query's answer as a table
//
// A query runs on a realm's data backend as the realm's read-only role
// (fleetdb.DB.QuerySQL): it reads that realm's tables, transforms and
// downsampled tables and nothing else, runs in a transaction that is
// always rolled back, returns at most the row limit (1–1000, default 100)
// and store.SQLMaxBytes (4 MiB) of values, saying so when it cut the
// answer, uses at most postgres.SQLPoolConns sessions per realm (more
// queries at once are answered "busy"), and is cancelled by PostgreSQL
// after the time limit (statement_timeout, 1–30 s, default 5 s). A query
// runs only for a request of the console's own pages (sameSite): an
// image or a link on another site cannot make it run. It needs the
// PostgreSQL store (flockd -db); without it the page says so. The page
// also shows the realm's connection string, for psql, and what the store
// accepts of the data template but does not apply.

package console

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
)

// The limits of the SQL page.
const (
	defaultSQLRows    = 100
	maxSQLRows        = 1000
	defaultSQLSeconds = 5
	maxSQLSeconds     = 30
)

type sqlView struct {
	Realms      []string
	Realm       string
	Query       string
	Limit       int
	Seconds     int
	URL         string
	Notes       []string
	Unavailable string // the store has no direct SQL
	Err         string
	Columns     []string
	Rows        [][]string
	Truncated   bool
	BytesCut    bool // the answer passed store.SQLMaxBytes
	Ran         bool
	MaxMiB      int // store.SQLMaxBytes in MiB
	Sessions    int // postgres.SQLPoolConns
}

func (c *Console) sql(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	v := sqlView{Realm: q.Get("realm"), Query: q.Get("q"),
		Limit:   min(max(atoiOr(q.Get("limit"), defaultSQLRows), 1), maxSQLRows),
		Seconds: min(max(atoiOr(q.Get("timeout"), defaultSQLSeconds), 1), maxSQLSeconds),
		MaxMiB:  store.SQLMaxBytes >> 20, Sessions: postgres.SQLPoolConns}
	if q.Has("q") && !sameSite(r) {
		c.fail(w, r, http.StatusForbidden, "This query came from another site (or from a client that does not say where it "+
			"comes from); the SQL page runs queries only from its own form. Use psql with the connection string shown on the page.")
		return
	}
	for _, rt := range c.realmsOf() {
		v.Realms = append(v.Realms, rt.Realm)
	}
	if v.Realm == "" && len(v.Realms) > 0 {
		v.Realm = v.Realms[0]
	}
	ctx := r.Context()
	if v.Realm != "" {
		u, err := c.cfg.Fleet.SQLURL(ctx, v.Realm)
		switch {
		case errors.Is(err, fleetdb.ErrNoSQL):
			v.Unavailable = "Direct SQL needs the PostgreSQL store: start flockd with -db postgres://…"
		case err != nil:
			v.Err = err.Error()
		default:
			v.URL = u
			v.Notes, _ = c.cfg.Fleet.StorageNotes(ctx, v.Realm)
		}
	}
	if v.Query == "" && v.Realm != "" {
		if defs, err := c.tableDefs(v.Realm); err == nil && len(defs) > 0 {
			v.Query = "SELECT * FROM " + strconv.Quote(defs[0].Name) + " ORDER BY tsp DESC"
		}
	}
	if q.Has("q") && v.URL != "" {
		v.Ran = true
		qctx, cancel := context.WithTimeout(ctx, time.Duration(v.Seconds+10)*time.Second)
		res, err := c.cfg.Fleet.QuerySQL(qctx, v.Realm, v.Query, v.Limit, time.Duration(v.Seconds)*time.Second)
		cancel()
		if err != nil {
			v.Err = err.Error()
		} else {
			v.Columns, v.Truncated, v.BytesCut = res.Columns, res.Truncated, res.BytesCut
			for _, row := range res.Rows {
				cells := make([]string, len(row))
				for i, s := range row {
					cells[i] = "NULL"
					if s != nil {
						cells[i] = *s
					}
				}
				v.Rows = append(v.Rows, cells)
			}
		}
	}
	c.render(w, "sql", "SQL", "/sql", v)
}
