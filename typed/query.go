// This file holds Query, a history read of one table.

package typed

import "github.com/flockgo/ironflock/client"

// Query selects rows of the table whose row type is R: the query of
// client.GetHistory with a typed filter and projection. A nil *Query
// reads the 10 newest rows.
type Query[R any] struct {
	// Limit is the number of rows, 1–10000 (transforms: 1–3000); 0 means
	// the default, 10.
	Limit int
	// Offset skips the newest Offset rows.
	Offset int64
	// TimeRange bounds tsp; nil means all time (client.Since,
	// client.Between, client.Until).
	TimeRange *client.TimeRange
	// Where selects the rows; the zero Filter selects all.
	Where Filter[R]
	// Columns to return; tsp, device_key and authid always come back and
	// the row's other fields stay nil. Nil means every column.
	Columns []Field[R]
	// ColumnPaths prunes json columns listed in Columns to these paths.
	ColumnPaths []JSONPath[R]
}

// Client returns q in the form of package client (nil for nil).
func (q *Query[R]) Client() *client.Query {
	if q == nil {
		return nil
	}
	out := &client.Query{Limit: q.Limit, Offset: q.Offset, TimeRange: q.TimeRange, FilterAnd: q.Where.Filters()}
	if q.Columns != nil {
		out.Columns = make([]string, 0, len(q.Columns))
		for _, c := range q.Columns {
			if c != nil {
				out.Columns = append(out.Columns, c.Name())
			}
		}
	}
	if q.ColumnPaths != nil {
		out.ColumnPaths = make([]string, len(q.ColumnPaths))
		for i, p := range q.ColumnPaths {
			out.ColumnPaths[i] = p.Name()
		}
	}
	return out
}
