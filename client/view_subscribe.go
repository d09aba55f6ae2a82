// This file holds SubscribeToView: the snapshots a transform publishes,
// one event per refresh carrying the whole view.

package client

import (
	"context"

	"github.com/flockgo/ironflock/internal/wire"
)

// ViewEvent is one refresh of a transform (an SQL view of the data
// template), as the data backend publishes it on transformed.<transform>
// at each tick of the transform's schedule: a snapshot of the whole view,
// not the rows that changed.
type ViewEvent struct {
	Transform string
	// Rows is the whole view, at most 3000 rows, in the order the data
	// backend sends them (the view's order reversed), typed as reads type
	// them. It is empty, not nil, when the view is: rows that left the view
	// are simply absent from the next snapshot.
	Rows            []Row
	PublisherAuthID string
}

// Decode decodes the rows into v, a pointer to a slice, with the rules of
// Decode.
func (e *ViewEvent) Decode(v any) error {
	list := make([]any, len(e.Rows))
	for i, r := range e.Rows {
		list[i] = map[string]any(r)
	}
	return DecodeInto(list, v)
}

// ViewHandler handles the snapshots of a view subscription. Calls never
// overlap and arrive in order; ctx ends when the subscription is removed
// or the client stops.
type ViewHandler func(ctx context.Context, ev *ViewEvent)

// SubscribeToView calls handler with every snapshot of the app's
// transform: the whole view, once per refresh, an empty one included.
// (SubscribeToTable hands the same rows over one at a time, and nothing
// for an empty view.) The subscription is restored after every reconnect.
// Of the options only QueueLimit applies. On a table, each new row
// published singly arrives as a snapshot of one row.
func (c *Client) SubscribeToView(ctx context.Context, transform string, handler ViewHandler, opts ...SubscribeOption) (*Subscription, error) {
	const op = "SubscribeToView"
	if err := checkReadTable(op, transform); err != nil {
		return nil, err
	}
	limit, err := queueOnly(op, transform, "view", opts, handler == nil)
	if err != nil {
		return nil, err
	}
	return c.subscribe(ctx, op, subKey{topic: wire.TransformedTopic(transform)}, limit, func(ctx context.Context, ev *Event) {
		rows := tableRows(ev)
		if rows == nil {
			rows = []Row{}
		}
		handler(ctx, &ViewEvent{Transform: transform, Rows: rows, PublisherAuthID: ev.PublisherAuthID})
	})
}
