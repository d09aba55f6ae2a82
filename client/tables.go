// This file holds table writes: PublishToTable, AppendToTable, their bulk
// forms, and the explanation of a row refused without a tsp.

package client

import (
	"context"
	"reflect"

	"github.com/flockgo/ironflock/internal/wire"
)

// BulkResult is the data backend's answer to a bulk append.
type BulkResult struct {
	Success bool `json:"success"`
	Count   int  `json:"count"`
}

// tableArgs validates the table and encodes the arguments of a single-row
// write with the device metadata.
func (c *Client) tableArgs(op, table string, args []any) (string, []any, map[string]any, error) {
	t, err := checkWriteTable(op, table)
	if err != nil {
		return "", nil, nil, err
	}
	if err := c.id.requireApp(op); err != nil {
		return "", nil, nil, err
	}
	wargs, kwargs, err := splitArgs[noOptions](op, t, args, nil)
	if err != nil {
		return "", nil, nil, err
	}
	wargs, kwargs = withMetadata(wargs, kwargs, c.metadata())
	return t, wargs, kwargs, nil
}

// PublishToTable publishes a row to the app's table: the row is the first
// argument (a struct, a map, …), a Kwargs value adds keyword arguments, and
// the device metadata is added. The router's acknowledgement confirms
// delivery, not the insert: a row the data backend refuses (a missing tsp,
// for one) is dropped and recorded in the error-logs table. It waits for a
// session up to the reconnect window (60 s by default) and sends the row
// again when the connection ended before it left the client (ErrNotSent);
// one written before the connection ended is not (ErrOutcomeUnknown).
func (c *Client) PublishToTable(ctx context.Context, table string, args ...any) error {
	const op = "PublishToTable"
	t, wargs, kwargs, err := c.tableArgs(op, table, args)
	if err != nil {
		return err
	}
	topic := wire.TableTopic(c.id.SwarmKey, c.id.AppKey, t)
	return opErr(op, topic, c.tablePublish(ctx, op, topic, wargs, kwargs))
}

// AppendToTable writes a row like PublishToTable but as a call the data
// backend answers once the row is stored ({"success": true}). Refusals keep
// their URI (sys.dataservice.error.*); a row without tsp is refused with
// wamp.error.runtime_error. A call the backend has not registered yet, or
// one the connection lost before it left the client, is retried within the
// reconnect window; one whose answer the connection lost fails with
// ErrOutcomeUnknown: the row may have been stored.
func (c *Client) AppendToTable(ctx context.Context, table string, args ...any) (*Result, error) {
	const op = "AppendToTable"
	t, err := checkWriteTable(op, table)
	if err != nil {
		return nil, err
	}
	if err := c.id.requireApp(op); err != nil {
		return nil, err
	}
	wargs, kwargs, cs, err := callArgs(op, t, args)
	if err != nil {
		return nil, err
	}
	wargs, kwargs = withMetadata(wargs, kwargs, c.metadata())
	uri := wire.AppendProc(c.id.SwarmKey, c.id.AppKey, t)
	res, err := c.tableCall(ctx, op, t, uri, wargs, kwargs, cs)
	return res, opErr(op, uri, explainMissingTsp(err))
}

// bulkArgs validates and encodes a batch: rows must be a non-empty slice or
// array; the whole batch is the single positional argument.
func (c *Client) bulkArgs(op, table string, rows any, kwargs []Kwargs) (string, []any, map[string]any, error) {
	t, err := checkWriteTable(op, table)
	if err != nil {
		return "", nil, nil, err
	}
	if err := c.id.requireApp(op); err != nil {
		return "", nil, nil, err
	}
	rv := reflect.ValueOf(rows)
	if !rv.IsValid() || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
		return "", nil, nil, invalidArg(op, t, "rows must be a slice of rows, got %T", rows)
	}
	if rv.Len() == 0 {
		return "", nil, nil, invalidArg(op, t, "rows is empty; a batch needs at least one row")
	}
	batch, ok := wireBatch(rows)
	if !ok {
		enc, err := encodeValue(rows, "rows")
		if err != nil {
			return "", nil, nil, invalidArg(op, t, "%v", err)
		}
		batch = enc.([]any)
	}
	for i, r := range batch {
		if _, ok := r.(map[string]any); !ok {
			return "", nil, nil, invalidArg(op, t, "rows[%d] is not a row object (%T)", i, r)
		}
	}
	merged := Kwargs{}
	for _, kw := range kwargs {
		for k, v := range kw {
			merged[k] = v
		}
	}
	kw, err := encodeKwargs(merged, "kwargs")
	if err != nil {
		return "", nil, nil, invalidArg(op, t, "%v", err)
	}
	args, kw := withMetadata([]any{batch}, kw, c.metadata())
	return t, args, kw, nil
}

// wireBatch returns rows as the batch to send when it is a []any or
// []map[string]any of non-nil row maps already in wire form (see
// wireMap): the maps are sent as they are, not copied.
func wireBatch(rows any) ([]any, bool) {
	switch l := rows.(type) {
	case []any:
		for _, r := range l {
			if m, ok := r.(map[string]any); !ok || m == nil || !wireMap(m) {
				return nil, false
			}
		}
		return l, true
	case []map[string]any:
		for _, m := range l {
			if m == nil || !wireMap(m) {
				return nil, false
			}
		}
		out := make([]any, len(l))
		for i, m := range l {
			out[i] = m
		}
		return out, true
	}
	return nil, false
}

// PublishRowsToTable publishes a non-empty batch of rows in one message;
// the data backend inserts it atomically (all or nothing). The
// acknowledgement confirms delivery, not the insert. Shared keyword
// arguments may be given; the device metadata is added.
func (c *Client) PublishRowsToTable(ctx context.Context, table string, rows any, kwargs ...Kwargs) error {
	const op = "PublishRowsToTable"
	t, args, kw, err := c.bulkArgs(op, table, rows, kwargs)
	if err != nil {
		return err
	}
	topic := wire.BulkTableTopic(c.id.SwarmKey, c.id.AppKey, t)
	return opErr(op, topic, c.tablePublish(ctx, op, topic, args, kw))
}

// AppendRowsToTable inserts a non-empty batch of rows by a call and returns
// how many were stored. The batch is atomic: one invalid row rejects it and
// nothing is stored.
func (c *Client) AppendRowsToTable(ctx context.Context, table string, rows any, kwargs ...Kwargs) (*BulkResult, error) {
	const op = "AppendRowsToTable"
	t, args, kw, err := c.bulkArgs(op, table, rows, kwargs)
	if err != nil {
		return nil, err
	}
	uri := wire.AppendBulkProc(c.id.SwarmKey, c.id.AppKey, t)
	res, err := c.tableCall(ctx, op, t, uri, args, kw, callSettings{})
	if err != nil {
		return nil, opErr(op, uri, explainMissingTsp(err))
	}
	var out BulkResult
	if err := res.Decode(&out); err != nil {
		return nil, opErr(op, uri, err)
	}
	return &out, nil
}

// missingTspError adds a hint to the data backend's bare refusal of a row
// without tsp: wamp.error.runtime_error with args [{}].
type missingTspError struct{ wamp *WampError }

func (e *missingTspError) Error() string {
	return e.wamp.Error() + " (the data backend refused the row without detail; a row without a tsp value is the usual cause)"
}

func (e *missingTspError) Unwrap() error { return e.wamp }

func explainMissingTsp(err error) error {
	we, ok := err.(*WampError)
	if !ok || we.URI != wire.ErrRuntimeError || len(we.Args) != 1 {
		return err
	}
	if m, ok := we.Args[0].(map[string]any); ok && len(m) == 0 {
		return &missingTspError{wamp: we}
	}
	return err
}
