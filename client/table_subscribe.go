// This file holds SubscribeToTable: the realtime rows of a table, single
// and bulk feeds delivered through one handler.

package client

import (
	"context"
	"errors"

	"github.com/flockgo/ironflock/internal/wire"
)

// TableEvent is one new row of a table, as the data backend publishes it
// after the insert: typed per column (tsp as an ISO 8601 text), with
// device_key and authid, secret columns masked.
type TableEvent struct {
	Table string
	Row   Row
	// Bulk is true for a row of a bulk insert (rows of one batch arrive one
	// at a time, in order).
	Bulk            bool
	PublisherAuthID string
}

// Decode decodes the row into v, with the rules of Decode.
func (e *TableEvent) Decode(v any) error { return e.Row.Decode(v) }

// TableHandler handles the rows of a table subscription. Calls never
// overlap and arrive in order; ctx ends when the subscription is removed or
// the client stops.
type TableHandler func(ctx context.Context, ev *TableEvent)

// TableSubscription is a subscription to a table's realtime rows.
type TableSubscription struct {
	c      *Client
	single *Subscription
	bulk   *Subscription
	d      *delivery
}

// Unsubscribe ends both feeds of the table at once.
func (t *TableSubscription) Unsubscribe(ctx context.Context) error {
	t.d.Stop()
	return errors.Join(t.c.Unsubscribe(ctx, t.single), t.c.Unsubscribe(ctx, t.bulk))
}

// Done is closed once the delivery goroutine has ended.
func (t *TableSubscription) Done() <-chan struct{} { return t.d.Done() }

// Dropped returns the number of events (a bulk insert is one event)
// dropped because the handler could not keep up and the queue was full
// (see QueueLimit).
func (t *TableSubscription) Dropped() uint64 { return t.d.Dropped() }

// Queued returns the number of events waiting for the handler.
func (t *TableSubscription) Queued() int { return t.d.Len() }

// SubscribeToTable calls handler for every new row of the app's table or
// transform: rows published singly (topic transformed.<table>) and rows of
// bulk inserts (transformed.bulk.<table>), which arrive one at a time. One
// handle ends both; both are restored after every reconnect. Of the
// options only QueueLimit applies: both feeds share one queue of events.
// A transform's event, the whole view, arrives one row at a time too;
// SubscribeToView delivers it as one snapshot.
func (c *Client) SubscribeToTable(ctx context.Context, table string, handler TableHandler, opts ...SubscribeOption) (*TableSubscription, error) {
	const op = "SubscribeToTable"
	if err := checkReadTable(op, table); err != nil {
		return nil, err
	}
	limit, err := queueOnly(op, table, "table", opts, handler == nil)
	if err != nil {
		return nil, err
	}
	singleTopic, bulkTopic := wire.TransformedTopic(table), wire.TransformedBulkTopic(table)
	if _, err := c.waitSession(ctx, op, singleTopic, c.waitFor(c.windowDeadline())); err != nil {
		return nil, err
	}
	d := c.newDelivery(singleTopic, limit, func(ctx context.Context, ev *Event) {
		bulk := ev.Topic == bulkTopic
		for _, row := range tableRows(ev) {
			handler(ctx, &TableEvent{Table: table, Row: row, Bulk: bulk, PublisherAuthID: ev.PublisherAuthID})
			if ctx.Err() != nil {
				return
			}
		}
	})
	ts := &TableSubscription{c: c, d: d,
		single: &Subscription{c: c, key: subKey{topic: singleTopic}, d: d},
		bulk:   &Subscription{c: c, key: subKey{topic: bulkTopic}, d: d},
	}
	if err := c.attach(ctx, op, ts.single); err != nil {
		d.Stop()
		return nil, err
	}
	if err := c.attach(ctx, op, ts.bulk); err != nil {
		d.Stop()
		_ = c.Unsubscribe(ctx, ts.single)
		return nil, err
	}
	return ts, nil
}

// tableRows unrolls an event into rows: a bulk event's args[0] is a list
// of rows (null rows skipped), as is a transform's view; a single event's
// args[0] is the row.
func tableRows(ev *Event) []Row {
	if len(ev.Args) == 0 {
		return nil
	}
	switch v := ev.Args[0].(type) {
	case map[string]any:
		return []Row{Row(v)}
	case []any:
		rows := make([]Row, 0, len(v))
		for _, r := range v {
			if m, ok := r.(map[string]any); ok {
				rows = append(rows, Row(m))
			}
		}
		return rows
	}
	return nil
}
