// This file holds the data backend's reads for the platform's own tools
// (flockd's web console): a table read and a series read taking the wire's
// query objects (TableQuery, SeriesQuery), validated and answered as
// history.transformed.<t> and history.transformed.series.<t> answer the
// platform's own session (secret columns masked, private tables and
// error-logs readable), without going through the router, so that the
// rows of a withheld realm or a router that is down can still be looked
// at. They serve no URI.
//
// They read with context.Background(): the console's handlers do not pass
// a context yet.

package fleetdb

import (
	"context"
	"fmt"
	"time"
)

// Read runs a table read of realm with query, a TableQuery as
// history.transformed.<t> takes it ({limit, offset, timeRange, filterAnd,
// columns, columnPaths}), and returns the rows newest first, typed as
// reads type them (timestamps as ISO 8601 texts, secrets masked). A
// refusal is an error with the refusal's URI and text.
func (db *DB) Read(realm, table string, query map[string]any) ([]map[string]any, error) {
	ctx := context.Background()
	b, t, err := db.readable(ctx, realm, table)
	if err != nil {
		return nil, err
	}
	q, ferr := validateHistory([]any{normalizeValue(query)})
	if ferr != nil {
		return nil, fmt.Errorf("read %q: %s", table, describe(ferr))
	}
	rows, ferr := b.history(ctx, t, q)
	if ferr != nil {
		return nil, fmt.Errorf("read %q: %s", table, describe(ferr))
	}
	return rows, nil
}

// ReadSeries runs a series read of realm with query, a SeriesQuery as
// history.transformed.series.<t> takes it ({metrics, limit, timeRange,
// bucketMs, groupBy, filterAnd}), at platform time now, and returns one
// row per bucket newest first: tsp (the bucket's start, an ISO 8601
// text) and one value per metric, keyed METHOD:ref.
func (db *DB) ReadSeries(realm, table string, query map[string]any, now time.Time) ([]map[string]any, error) {
	ctx := context.Background()
	b, t, err := db.readable(ctx, realm, table)
	if err != nil {
		return nil, err
	}
	q, ferr := validateSeries([]any{normalizeValue(query)})
	if ferr != nil {
		return nil, fmt.Errorf("series of %q: %s", table, describe(ferr))
	}
	rows, ferr := b.series(ctx, t, q, now.UnixMilli())
	if ferr != nil {
		return nil, fmt.Errorf("series of %q: %s", table, describe(ferr))
	}
	return rows, nil
}

// readable returns the backend of realm and its table.
func (db *DB) readable(ctx context.Context, realm, table string) (*backend, *table, error) {
	b, err := db.backend(ctx, realm)
	if err != nil {
		return nil, nil, err
	}
	t := b.table(table)
	if t == nil {
		return nil, nil, fmt.Errorf("realm %q has no table %q", realm, table)
	}
	return b, t, nil
}

// Extent is how many rows a table holds and the tsp of its oldest and
// newest row (zero times for an empty table).
type Extent struct {
	Rows           int
	Oldest, Newest time.Time
}

// Extent returns the extent of a table of realm.
func (db *DB) Extent(realm, table string) (Extent, error) {
	ctx := context.Background()
	b, t, err := db.readable(ctx, realm, table)
	if err != nil {
		return Extent{}, err
	}
	n, err := b.store.Count(ctx, t.name)
	if err != nil {
		return Extent{}, fmt.Errorf("extent of %q: %w", table, err)
	}
	oldest, newest, ok, err := b.store.Span(ctx, t.name)
	if err != nil {
		return Extent{}, fmt.Errorf("extent of %q: %w", table, err)
	}
	e := Extent{Rows: int(n)}
	if ok {
		e.Oldest = time.UnixMilli(oldest).UTC()
		e.Newest = time.UnixMilli(newest).UTC()
	}
	return e, nil
}
