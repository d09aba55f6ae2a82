// This file holds Provider, the handle on a provider app's data: its
// catalog, the reads (GetHistory, GetSeriesHistory, SubscribeToTable)
// behind the catalog guard, Close, Err and Done.

package crossapp

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/flockgo/ironflock/client"
)

// Provider is a read-only handle on the shared tables and transforms of a
// provider app in one stage, over a connection of its own to the
// provider's realm. Get it from Connect or ConnectAll; it is safe for
// concurrent use. Reads are checked against the catalog before anything is
// sent (PRIVATE_TABLE, SECRET_COLUMN) and otherwise behave as the client's
// own: they wait for the connection up to the client's reconnect window
// and return rows in the same form, secret columns reading "__secret__".
type Provider struct {
	k       *Consumer
	key     cacheKey
	app     string
	appKey  int
	stage   client.Stage
	catalog Catalog
	onError func(error)
	pc      *client.Client // the connection to the provider's realm

	ctx    context.Context // ends with the handle
	cancel context.CancelFunc

	mu   sync.Mutex
	err  error         // why the handle ended; nil while open
	done chan struct{} // closed when err is set

	// Used only by the attempt handler, on the connection's goroutine.
	abort  context.CancelCauseFunc // ends the first Start
	joined bool                    // a session was joined once
	streak int                     // refusals in a row since then
	first  time.Time               // of the streak
}

func newProvider(k *Consumer, key cacheKey, app string, appKey int, stage client.Stage, cat Catalog, onError func(error)) *Provider {
	p := &Provider{k: k, key: key, app: app, appKey: appKey, stage: stage, catalog: cat, onError: onError, done: make(chan struct{})}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	return p
}

// App returns the provider's name, as the platform answered it.
func (p *Provider) App() string { return p.app }

// AppKey returns the provider's app key.
func (p *Provider) AppKey() int { return p.appKey }

// Stage returns the stage of the provider's data the handle reads.
func (p *Provider) Stage() client.Stage { return p.stage }

// Tables returns the provider's shared tables with their columns.
func (p *Provider) Tables() []Entry { return cloneEntries(p.catalog.Tables) }

// Transforms returns the provider's shared transforms with their columns.
func (p *Provider) Transforms() []Entry { return cloneEntries(p.catalog.Transforms) }

// Err returns why the handle ended: ErrClosed after Close or the client's
// Stop, an *AccessError (NO_GRANT, NOT_AUTHORIZED) when access was lost.
// It is nil while the handle is open.
func (p *Provider) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Done is closed when the handle ends; Err then says why.
func (p *Provider) Done() <-chan struct{} { return p.done }

// end records why the handle ended; it reports false when it had already
// ended.
func (p *Provider) end(why error) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err != nil {
		return false
	}
	p.err = why
	close(p.done)
	return true
}

// Close ends the handle and its connection; later calls fail with
// ErrClosed, and Connect opens a new handle. ctx bounds the wait for the
// router's goodbye. Closing twice, or after access was lost, is harmless.
func (p *Provider) Close(ctx context.Context) error {
	p.end(ErrClosed)
	p.cancel()
	p.k.evict(p)
	return opError("crossapp.Close", p.app, p.app, p.pc.Stop(ctx))
}

// GetHistory reads rows of a shared table or transform as
// client.Client.GetHistory reads the app's own.
func (p *Provider) GetHistory(ctx context.Context, table string, q *client.Query) ([]client.Row, error) {
	const op = "crossapp.GetHistory"
	if err := p.check(op, table, false); err != nil {
		return nil, err
	}
	if err := p.guardQuery(op, table, q); err != nil {
		return nil, err
	}
	rows, err := p.pc.GetHistory(ctx, table, q)
	return rows, p.opError(op, table, err)
}

// GetSeriesHistory reads down-sampled series of a shared table (not of a
// transform: PRIVATE_TABLE) as client.Client.GetSeriesHistory reads the
// app's own.
func (p *Provider) GetSeriesHistory(ctx context.Context, table string, q client.SeriesQuery) ([]client.Row, error) {
	const op = "crossapp.GetSeriesHistory"
	if err := p.check(op, table, true); err != nil {
		return nil, err
	}
	if err := p.guardSeries(op, table, q); err != nil {
		return nil, err
	}
	rows, err := p.pc.GetSeriesHistory(ctx, table, q)
	return rows, p.opError(op, table, err)
}

// SubscribeToTable calls handler for every new row of a shared table or
// transform, as client.Client.SubscribeToTable does for the app's own. The
// subscription is restored after every reconnect of the handle and ends
// with it. Options are those of client.Client.SubscribeToTable (the
// queue's limit).
func (p *Provider) SubscribeToTable(ctx context.Context, table string, handler client.TableHandler, opts ...client.SubscribeOption) (*client.TableSubscription, error) {
	const op = "crossapp.SubscribeToTable"
	if err := p.check(op, table, false); err != nil {
		return nil, err
	}
	sub, err := p.pc.SubscribeToTable(ctx, table, handler, opts...)
	return sub, p.opError(op, table, err)
}

// SubscribeToView calls handler with every snapshot of a shared
// transform, the whole view once per refresh, as
// client.Client.SubscribeToView does for the app's own. The subscription
// is restored after every reconnect of the handle and ends with it.
func (p *Provider) SubscribeToView(ctx context.Context, transform string, handler client.ViewHandler, opts ...client.SubscribeOption) (*client.Subscription, error) {
	const op = "crossapp.SubscribeToView"
	if err := p.check(op, transform, false); err != nil {
		return nil, err
	}
	sub, err := p.pc.SubscribeToView(ctx, transform, handler, opts...)
	return sub, p.opError(op, transform, err)
}

// check refuses an operation on an ended handle, or on a table the
// provider does not share (for series, a transform too).
func (p *Provider) check(op, table string, series bool) error {
	if err := p.Err(); err != nil {
		return &client.OpError{Op: op, URI: table, Err: err}
	}
	switch e, transform := p.catalog.find(table); {
	case e == nil:
		return &client.OpError{Op: op, URI: table, Err: accessErr(CodePrivateTable, p.app,
			"app %q does not share a table or transform %q in stage %s", p.app, table, p.stage)}
	case series && transform:
		return &client.OpError{Op: op, URI: table, Err: accessErr(CodePrivateTable, p.app,
			"%q of app %q is a transform; series are available for tables only", table, p.app)}
	}
	return nil
}

// opError wraps the error of a read; a read the handle's end cut short
// reports why the handle ended.
func (p *Provider) opError(op, table string, err error) error {
	if err == nil {
		return nil
	}
	if why := p.Err(); why != nil && (errors.Is(err, client.ErrStopped) || errors.Is(err, client.ErrConnectionLost)) {
		return &client.OpError{Op: op, URI: table, Err: why}
	}
	return opError(op, table, p.app, err)
}
