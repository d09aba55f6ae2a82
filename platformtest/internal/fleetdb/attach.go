// This file attaches the fake data backend (fleetdb) to every realm
// realm-<S>-<A>-<stage>, driven by the app's data template (WIRE.md
// §6.1). For each declared table and the system table error-logs it
// registers
//
//	history.transformed.<t>          (fleetdb_history.go)
//	history.transformed.series.<t>   (fleetdb_series.go)
//	append.<S>.<A>.<t>               (fleetdb_write.go)
//	appendBulk.<S>.<A>.<t>           (fleetdb_write.go)
//
// and subscribes <S>.<A>.<t> and bulk.<S>.<A>.<t> (fleetdb_write.go); for
// each transform it registers history.transformed.<transform>. Undeclared
// tables therefore answer wamp.error.no_such_procedure and their
// publications reach nobody. It publishes transformed.<t> and
// transformed.bulk.<t> (fleetdb_feed.go).
//
// Not yet served (later issues): secret.reveal.<t> and secret.verify.<t>
// for tables with a secret column, sys.appaccess.resolve and
// sys.appaccess.list. They belong in attachFleetdb below.
//
// The rows live in the Platform (fleetdb_store.go), not in the realm's
// service session, so they survive Restart, Down/Up and withheld realms.
// Every inbound payload the backend receives from an app is recorded by
// the router before validation (Platform.Recorded, Calls, Publications).

package fleetdb

import (
	"context"
	"errors"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Name returns "fleetdb".
func (*DB) Name() string { return "fleetdb" }

// Attach registers the data backend of h's realm on h and keeps h as the
// realm's current Host, through which hooks publish (SetTransformRows).
func (db *DB) Attach(h *realm.Host) error {
	b, err := db.backend(h.Realm.Name)
	if err != nil {
		return err
	}
	b.mu.Lock()
	b.host = h
	b.mu.Unlock()
	var errs []error
	for _, name := range b.tableNames() {
		t := b.table(name)
		errs = append(errs,
			h.Register(wire.HistoryProc(name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
				return b.serveHistory(ctx, h, t, inv)
			}, nil),
			h.Register(wire.SeriesProc(name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
				return b.serveSeries(ctx, h, t, inv)
			}, nil),
			b.serveWrites(h, t),
		)
		// secret.reveal.<t> and secret.verify.<t> (tables with a secret
		// column) go here.
	}
	for _, name := range b.viewNames() {
		v := b.views[name]
		errs = append(errs, h.Register(wire.HistoryProc(name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
			return b.serveViewHistory(ctx, h, v, inv)
		}, nil))
	}
	// sys.appaccess.resolve and sys.appaccess.list go here.
	return errors.Join(errs...)
}
