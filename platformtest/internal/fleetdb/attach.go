// This file attaches the data backend to a realm realm-<S>-<A>-<stage>
// when the realm comes up: for each declared table and the system table
// error-logs it registers
//
//	history.transformed.<t>          (history.go)
//	history.transformed.series.<t>   (series.go)
//	append.<S>.<A>.<t>               (write.go)
//	appendBulk.<S>.<A>.<t>           (write.go)
//
// and subscribes <S>.<A>.<t> and bulk.<S>.<A>.<t> (write.go); for each
// table with a secret column it registers
//
//	secret.reveal.<t>                (secrets.go)
//	secret.verify.<t>                (secrets.go)
//
// and for each transform history.transformed.<transform> (history.go).
// The feeds transformed.<t> and transformed.bulk.<t> go out through the
// same Host (feed.go).
//
// Not served: sys.appaccess.resolve and sys.appaccess.list. Their place is
// marked in Attach below.

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
	b.dropped = db.reportDrops
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
		if len(t.secretCols()) > 0 {
			errs = append(errs, b.serveSecrets(h, t))
		}
	}
	for _, name := range b.viewNames() {
		v := b.views[name]
		errs = append(errs, h.Register(wire.HistoryProc(name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
			return b.serveViewHistory(ctx, h, v, inv)
		}, nil))
	}
	// Not served yet: sys.appaccess.resolve and sys.appaccess.list register
	// here.
	return errors.Join(errs...)
}
