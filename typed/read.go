// This file holds the reads every typed handle shares — history, series
// and realtime rows — over the app's own client or a provider of another
// app, and Event, a new row delivered to a typed handler.

package typed

import (
	"context"

	"github.com/flockgo/ironflock/client"
)

// source is where a handle reads: a *client.Client (the app's own tables)
// or a *crossapp.Provider (another app's shared tables), which read alike.
type source interface {
	GetHistory(ctx context.Context, table string, q *client.Query) ([]client.Row, error)
	GetSeriesHistory(ctx context.Context, table string, q client.SeriesQuery) ([]client.Row, error)
	SubscribeToTable(ctx context.Context, table string, handler client.TableHandler, opts ...client.SubscribeOption) (*client.TableSubscription, error)
	SubscribeToView(ctx context.Context, transform string, handler client.ViewHandler, opts ...client.SubscribeOption) (*client.Subscription, error)
}

// reader holds the reads of one table or transform.
type reader[R any] struct {
	src source
	s   *Schema[R]
}

func (r reader[R]) history(ctx context.Context, q *Query[R]) ([]R, error) {
	rows, err := r.src.GetHistory(ctx, r.s.Table, q.Client())
	if err != nil {
		return nil, err
	}
	return r.decode("typed.History", rows)
}

// decode decodes rows, naming op and the table in an error.
func (r reader[R]) decode(op string, rows []client.Row) ([]R, error) {
	out, err := r.s.Decode(rows)
	if err != nil {
		return nil, &client.OpError{Op: op, URI: r.s.Table, Err: err}
	}
	return out, nil
}

func (r reader[R]) series(ctx context.Context, q SeriesQuery[R]) ([]SeriesRow[R], error) {
	rows, err := r.src.GetSeriesHistory(ctx, r.s.Table, q.client())
	if err != nil {
		return nil, err
	}
	out, err := seriesRows(rows, q)
	if err != nil {
		return nil, &client.OpError{Op: "typed.Series", URI: r.s.Table, Err: err}
	}
	return out, nil
}

func (r reader[R]) subscribe(ctx context.Context, fn func(ctx context.Context, ev Event[R]), opts []client.SubscribeOption) (*client.TableSubscription, error) {
	if fn == nil {
		return nil, &client.OpError{Op: "typed.Subscribe", URI: r.s.Table, Err: invalidArg("the handler is nil")}
	}
	return r.src.SubscribeToTable(ctx, r.s.Table, func(ctx context.Context, tev *client.TableEvent) {
		ev := Event[R]{Bulk: tev.Bulk, PublisherAuthID: tev.PublisherAuthID, Raw: tev.Row}
		rows, err := r.s.Decode([]client.Row{tev.Row})
		if err != nil {
			ev.Err = &client.OpError{Op: "typed.Subscribe", URI: r.s.Table, Err: err}
		} else {
			ev.Row = rows[0]
		}
		fn(ctx, ev)
	}, opts...)
}

func (r reader[R]) snapshots(ctx context.Context, fn func(ctx context.Context, s Snapshot[R]), opts []client.SubscribeOption) (*client.Subscription, error) {
	if fn == nil {
		return nil, &client.OpError{Op: "typed.Snapshots", URI: r.s.Table, Err: invalidArg("the handler is nil")}
	}
	return r.src.SubscribeToView(ctx, r.s.Table, func(ctx context.Context, vev *client.ViewEvent) {
		s := Snapshot[R]{PublisherAuthID: vev.PublisherAuthID, Raw: vev.Rows}
		rows, err := r.s.Decode(vev.Rows)
		if err != nil {
			s.Err = &client.OpError{Op: "typed.Snapshots", URI: r.s.Table, Err: err}
		} else {
			s.Rows = rows
		}
		fn(ctx, s)
	}, opts...)
}

// Snapshot is one refresh of a transform, delivered to the handler of
// Snapshots: the whole view, not the rows that changed.
type Snapshot[R any] struct {
	// Rows is the whole view (at most 3000 rows, the view's order
	// reversed), empty when the view is.
	Rows []R
	// PublisherAuthID is the authid of the publisher when the platform
	// discloses it.
	PublisherAuthID string
	// Raw is the view as the platform sent it.
	Raw []client.Row
	// Err is set, and Rows is nil, when a row could not be decoded.
	Err error
}

// Event is a new row of a table, delivered to the handler of Subscribe.
type Event[R any] struct {
	// Row is the row. The platform's feed carries the columns the write
	// carried (and device_key, authid); the others are nil here, though
	// on a table with an entity key they keep the entity's values.
	Row R
	// Bulk is true for a row of a bulk write.
	Bulk bool
	// PublisherAuthID is the authid of the writer when the platform
	// discloses it.
	PublisherAuthID string
	// Raw is the row as the platform sent it.
	Raw client.Row
	// Err is set, and Row is the zero value, when the row could not be
	// decoded (a value of the wrong type for its column).
	Err error
}

// View is a read-only handle on a transform of the app (an SQL view):
// its rows and its realtime feed. The platform reads at most 3000 rows of
// a transform and ignores a query's time range, columns and latest marker.
type View[R any] struct{ r reader[R] }

// NewView returns the handle on the transform s describes, reading
// through c.
func NewView[R any](c *client.Client, s *Schema[R]) View[R] {
	return View[R]{r: reader[R]{src: c, s: s}}
}

// Name returns the transform's name.
func (v View[R]) Name() string { return v.r.s.Table }

// History reads rows of the transform (see client.Client.GetHistory).
func (v View[R]) History(ctx context.Context, q *Query[R]) ([]R, error) { return v.r.history(ctx, q) }

// Subscribe calls fn for every row the transform publishes (the whole
// view on each refresh), in order (see client.Client.SubscribeToTable).
func (v View[R]) Subscribe(ctx context.Context, fn func(ctx context.Context, ev Event[R]), opts ...client.SubscribeOption) (*client.TableSubscription, error) {
	return v.r.subscribe(ctx, fn, opts)
}

// Snapshots calls fn with the whole view on each refresh, an empty one
// included (see client.Client.SubscribeToView).
func (v View[R]) Snapshots(ctx context.Context, fn func(ctx context.Context, s Snapshot[R]), opts ...client.SubscribeOption) (*client.Subscription, error) {
	return v.r.snapshots(ctx, fn, opts)
}
