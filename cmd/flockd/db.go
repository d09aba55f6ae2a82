// This file holds flockd's side of the PostgreSQL store (docs/postgres.md):
// the flags that choose it (-db, -db-wait; -allow-drop, data.go, lets its
// migrations drop columns too) and the read-only connection string of each
// app backend, printed in the log and written to the environment file.

package main

import (
	"flag"
	"log/slog"
	"time"

	"github.com/flockgo/ironflock/platformtest"
)

// dbFlags are the PostgreSQL store's command-line flags.
type dbFlags struct {
	url  *string
	wait *time.Duration
}

func addDBFlags(fs *flag.FlagSet) dbFlags {
	return dbFlags{
		url: fs.String("db", "", "keep the tables in the PostgreSQL database at `URL` (postgres://user:password@host:port/database): a schema per app backend,\n"+
			"transforms computed from their SQL, dropAfter and downsample applied, read-only SQL access (default: in memory)"),
		wait: fs.Duration("db-wait", 0, "wait up to `DURATION` for the -db server at start (default: fail at once when it cannot be reached)"),
	}
}

// option returns the platform option of the flags, nil without -db;
// allowDrop (-allow-drop) lets a changed data template drop the columns it
// removes and re-create, empty, those it retypes.
func (f dbFlags) option(allowDrop bool) platformtest.Option {
	if *f.url == "" {
		return nil
	}
	opts := []platformtest.PostgresOption{platformtest.PostgresWait(*f.wait)}
	if allowDrop {
		opts = append(opts, platformtest.PostgresAllowDrop())
	}
	return platformtest.WithPostgres(*f.url, opts...)
}

// envSQL is the read-only connection string of an app backend, in the
// environment file.
type envSQL struct {
	Project string `json:"project"`
	App     string `json:"app"`
	Stage   string `json:"stage"`
	Realm   string `json:"realm"`
	URL     string `json:"url"`
}

// sqlAccess returns the read-only connection string of every app backend
// of the installations, logging each; none without -db.
func (f dbFlags) sqlAccess(log *slog.Logger, p *platformtest.Platform, res *platformtest.SeedResult) ([]envSQL, error) {
	if *f.url == "" {
		return nil, nil
	}
	var out []envSQL
	seen := map[string]bool{}
	for _, in := range res.Installations {
		if seen[in.Realm()] {
			continue
		}
		seen[in.Realm()] = true
		u, err := p.SQLURL(in.Realm())
		if err != nil {
			return nil, err
		}
		e := envSQL{Project: in.Device().Project().Name(), App: in.App().Name(), Stage: string(in.Stage()), Realm: in.Realm(), URL: u}
		log.Info("direct SQL (read-only)", "app", e.App, "stage", e.Stage, "realm", e.Realm, "url", e.URL)
		out = append(out, e)
	}
	return out, nil
}
