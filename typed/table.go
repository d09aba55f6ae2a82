// This file holds Table, the typed handle on a table of the app: writes
// (publish, append, their bulk forms) and reads.

package typed

import (
	"context"
	"fmt"
	"reflect"

	"github.com/flockgo/ironflock/client"
)

// Table is the typed handle on a table of the app, over a *client.Client:
// rows of type R are written where the data template's column paths say
// and read back flat by column id. Every operation is the client's of the
// same name (PublishToTable, AppendToTable, …) and behaves as it does:
// reconnect window, retries, errors.
type Table[R any] struct {
	c *client.Client
	r reader[R]
}

// NewTable returns the handle on the table s describes, working through
// c (generated code calls it).
func NewTable[R any](c *client.Client, s *Schema[R]) Table[R] {
	return Table[R]{c: c, r: reader[R]{src: c, s: s}}
}

// Name returns the table's name.
func (t Table[R]) Name() string { return t.r.s.Table }

// encode writes row as a message.
func (t Table[R]) encode(row R) (Message, error) {
	if t.r.s.Encode == nil {
		return Message{}, invalidArg("the table is read only")
	}
	return t.r.s.Encode(row)
}

// opErr wraps err in a *client.OpError naming op and the table.
func (t Table[R]) opErr(op string, err error) error {
	return &client.OpError{Op: op, URI: t.r.s.Table, Err: err}
}

// Publish publishes row to the table (client.Client.PublishToTable): the
// acknowledgement confirms delivery, not the insert.
func (t Table[R]) Publish(ctx context.Context, row R) error {
	m, err := t.encode(row)
	if err != nil {
		return t.opErr("typed.Publish", err)
	}
	return t.c.PublishToTable(ctx, t.r.s.Table, m.args(nil)...)
}

// Append stores row in the table and returns once the data backend
// stored it (client.Client.AppendToTable). Call options (client.Timeout,
// …) apply to the call.
func (t Table[R]) Append(ctx context.Context, row R, opts ...client.CallOption) error {
	m, err := t.encode(row)
	if err != nil {
		return t.opErr("typed.Append", err)
	}
	var extra []any
	if len(opts) > 0 {
		extra = make([]any, len(opts))
		for i, o := range opts {
			extra[i] = o
		}
	}
	_, err = t.c.AppendToTable(ctx, t.r.s.Table, m.args(extra)...)
	return err
}

// batch encodes rows as one bulk write: the row objects and the keyword
// arguments they share.
func (t Table[R]) batch(op string, rows []R) ([]any, []client.Kwargs, error) {
	fail := func(format string, a ...any) ([]any, []client.Kwargs, error) {
		return nil, nil, t.opErr(op, invalidArg(format, a...))
	}
	if t.r.s.NoBulk != "" {
		return fail("rows of this table cannot be written in bulk: %s", t.r.s.NoBulk)
	}
	if len(rows) == 0 {
		return fail("rows is empty; a batch needs at least one row")
	}
	objs := make([]any, len(rows))
	var kw map[string]any
	for i, row := range rows {
		m, err := t.encode(row)
		if err != nil {
			return nil, nil, t.opErr(op, fmt.Errorf("rows[%d]: %w", i, err))
		}
		switch len(m.Args) {
		case 0:
			objs[i] = map[string]any{}
		case 1:
			objs[i] = m.Args[0]
		default:
			return fail("rows[%d] has positional arguments beyond the row, which a bulk write does not carry", i)
		}
		if i == 0 {
			kw = m.Kwargs
		} else if !reflect.DeepEqual(kw, m.Kwargs) {
			return fail("rows[0] and rows[%d] differ in the columns written to kwargs; the rows of a batch share one set of keyword arguments", i)
		}
	}
	if kw == nil {
		return objs, nil, nil
	}
	return objs, []client.Kwargs{kw}, nil
}

// PublishRows publishes rows in one message (client.Client.PublishRowsToTable);
// the data backend inserts them all or none. Columns written to kwargs
// must be equal in every row: a batch carries one set of keyword
// arguments.
func (t Table[R]) PublishRows(ctx context.Context, rows []R) error {
	objs, kw, err := t.batch("typed.PublishRows", rows)
	if err != nil {
		return err
	}
	return t.c.PublishRowsToTable(ctx, t.r.s.Table, objs, kw...)
}

// AppendRows stores rows in one call (client.Client.AppendRowsToTable),
// all or none, and returns how many were stored. Columns written to
// kwargs must be equal in every row.
func (t Table[R]) AppendRows(ctx context.Context, rows []R) (int, error) {
	objs, kw, err := t.batch("typed.AppendRows", rows)
	if err != nil {
		return 0, err
	}
	res, err := t.c.AppendRowsToTable(ctx, t.r.s.Table, objs, kw...)
	if err != nil {
		return 0, err
	}
	return res.Count, nil
}

// History reads rows of the table: the newest Limit rows after Offset
// that match, in ascending tsp order (client.Client.GetHistory).
func (t Table[R]) History(ctx context.Context, q *Query[R]) ([]R, error) {
	return t.r.history(ctx, q)
}

// Series reads a down-sampled series of the table: one row per bucket
// (and group), ascending (client.Client.GetSeriesHistory).
func (t Table[R]) Series(ctx context.Context, q SeriesQuery[R]) ([]SeriesRow[R], error) {
	return t.r.series(ctx, q)
}

// Subscribe calls fn for every new row of the table, single and bulk
// writes alike, in order (client.Client.SubscribeToTable).
func (t Table[R]) Subscribe(ctx context.Context, fn func(ctx context.Context, ev Event[R]), opts ...client.SubscribeOption) (*client.TableSubscription, error) {
	return t.r.subscribe(ctx, fn, opts)
}
