// This file holds the typed read-only handles on another app's shared
// tables and transforms, over a crossapp.Provider.

package typed

import (
	"context"

	"github.com/flockgo/ironflock/client"
	"github.com/flockgo/ironflock/crossapp"
)

// Shared is the read-only handle on a table another app shares with this
// one (its data template consumes the provider), over the provider's
// *crossapp.Provider: history, series and realtime rows, with the guards
// of package crossapp (private tables and secret columns refused).
type Shared[R any] struct{ r reader[R] }

// NewShared returns the handle on the provider's table s describes.
func NewShared[R any](p *crossapp.Provider, s *Schema[R]) Shared[R] {
	return Shared[R]{r: reader[R]{src: p, s: s}}
}

// Name returns the table's name.
func (t Shared[R]) Name() string { return t.r.s.Table }

// History reads rows of the table (crossapp.Provider.GetHistory).
func (t Shared[R]) History(ctx context.Context, q *Query[R]) ([]R, error) {
	return t.r.history(ctx, q)
}

// Series reads a down-sampled series (crossapp.Provider.GetSeriesHistory).
func (t Shared[R]) Series(ctx context.Context, q SeriesQuery[R]) ([]SeriesRow[R], error) {
	return t.r.series(ctx, q)
}

// Subscribe calls fn for every new row of the table
// (crossapp.Provider.SubscribeToTable).
func (t Shared[R]) Subscribe(ctx context.Context, fn func(ctx context.Context, ev Event[R]), opts ...client.SubscribeOption) (*client.TableSubscription, error) {
	return t.r.subscribe(ctx, fn, opts)
}

// SharedView is the read-only handle on a transform another app shares:
// history and realtime rows.
type SharedView[R any] struct{ r reader[R] }

// NewSharedView returns the handle on the provider's transform s
// describes.
func NewSharedView[R any](p *crossapp.Provider, s *Schema[R]) SharedView[R] {
	return SharedView[R]{r: reader[R]{src: p, s: s}}
}

// Name returns the transform's name.
func (v SharedView[R]) Name() string { return v.r.s.Table }

// History reads rows of the transform (crossapp.Provider.GetHistory).
func (v SharedView[R]) History(ctx context.Context, q *Query[R]) ([]R, error) {
	return v.r.history(ctx, q)
}

// Subscribe calls fn for every row the transform publishes
// (crossapp.Provider.SubscribeToTable).
func (v SharedView[R]) Subscribe(ctx context.Context, fn func(ctx context.Context, ev Event[R]), opts ...client.SubscribeOption) (*client.TableSubscription, error) {
	return v.r.subscribe(ctx, fn, opts)
}

// Snapshots calls fn with the whole view on each refresh, an empty one
// included (crossapp.Provider.SubscribeToView).
func (v SharedView[R]) Snapshots(ctx context.Context, fn func(ctx context.Context, s Snapshot[R]), opts ...client.SubscribeOption) (*client.Subscription, error) {
	return v.r.snapshots(ctx, fn, opts)
}
