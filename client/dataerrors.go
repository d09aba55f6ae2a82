// This file holds SubscribeToDataErrors: the writes the data backend
// refused, as it reports them on databackend.errors.<t> (docs/wire.md
// §7.8).

package client

import (
	"context"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
)

// The operations a DataError names.
const (
	DataErrorAppend      = wire.OpAppend      // AppendToTable (append.<S>.<A>.<t>)
	DataErrorAppendBulk  = wire.OpAppendBulk  // AppendRowsToTable (appendBulk.…)
	DataErrorPublish     = wire.OpPublish     // PublishToTable (<S>.<A>.<t>)
	DataErrorPublishBulk = wire.OpPublishBulk // PublishRowsToTable (bulk.…)
)

// DataError is a write to a table that the data backend refused, as it
// reports it to the app's subscribers. Publications are fire-and-forget:
// this report is how an app learns that one was dropped (a row without
// tsp, a value the column's type refuses, a conflicting entity key…).
// It never carries a value of the refused rows.
type DataError struct {
	// Table is the table written to.
	Table string
	// Operation is DataErrorAppend, DataErrorAppendBulk, DataErrorPublish or DataErrorPublishBulk.
	Operation string
	// URI is the refusal's error URI, e.g.
	// sys.dataservice.error.entity_key_conflict or wamp.error.runtime_error:
	// the URI an append refused the same way fails with (WampURI).
	URI string
	// Message is the refusal's text.
	Message string
	// Time is when the data backend refused the write (platform time).
	Time time.Time
	// DeviceKey is the writing device's key (-1 when unknown), AuthID its
	// serial number.
	DeviceKey int64
	AuthID    string
	// Rows is the number of rows in the refused message (a refused batch
	// stores none of them).
	Rows int
}

// DataErrorHandler handles the reports of a data error subscription.
// Calls never overlap and arrive in order; ctx ends when the subscription
// is removed or the client stops.
type DataErrorHandler func(ctx context.Context, e *DataError)

// SubscribeToDataErrors calls handler for every write to table that the
// data backend refuses, from any device of the app (topic
// databackend.errors.<table>); table "" subscribes to the refusals of
// every table (a prefix subscription). The subscription is restored after
// every reconnect. Of the options only QueueLimit applies. A report that
// is not an object is skipped.
func (c *Client) SubscribeToDataErrors(ctx context.Context, table string, handler DataErrorHandler, opts ...SubscribeOption) (*Subscription, error) {
	const op = "SubscribeToDataErrors"
	key := subKey{topic: wire.DataErrorsTopic(table)}
	if table == "" {
		key.match = wire.MatchPrefix
	} else if err := checkReadTable(op, table); err != nil {
		return nil, err
	}
	limit, err := queueOnly(op, table, "data error", opts, handler == nil)
	if err != nil {
		return nil, err
	}
	return c.subscribe(ctx, op, key, limit, func(ctx context.Context, ev *Event) {
		if e, ok := dataErrorOf(ev); ok {
			handler(ctx, e)
		}
	})
}

// dataErrorOf reads a report; ok is false when args[0] is not an object.
// Fields of another type are left zero.
func dataErrorOf(ev *Event) (*DataError, bool) {
	if len(ev.Args) == 0 {
		return nil, false
	}
	m, ok := ev.Args[0].(map[string]any)
	if !ok {
		return nil, false
	}
	text := func(k string) string { s, _ := m[k].(string); return s }
	e := &DataError{Table: text(wire.DataErrorTable), Operation: text(wire.DataErrorOperation), URI: text(wire.DataErrorURI),
		Message: text(wire.DataErrorMessage), AuthID: text(wire.DataErrorAuthID), DeviceKey: -1}
	if at, err := timeValue(m[wire.DataErrorTsp], wire.DataErrorTsp); err == nil {
		e.Time = at
	}
	if k, ok := asInt64(m[wire.DataErrorDeviceKey]); ok {
		e.DeviceKey = k
	}
	if n, ok := asInt64(m[wire.DataErrorRows]); ok {
		e.Rows = int(n)
	}
	return e, true
}
