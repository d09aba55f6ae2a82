// Package typed is what the code cmd/flockgen generates from an app's
// templates is built on: typed handles on the app's tables, transforms,
// file namespaces and the tables of the apps it consumes, and typed
// columns to filter, select, aggregate and group by.
//
// A generated file holds, per table of .ironflock/data-template.yml, a row
// struct (ReadingsRow), its columns (Readings), a handle (ReadingsTable,
// made by NewReadings) and a Schema that writes and reads the rows without
// reflection; this package holds the rest:
//
//	readings := fleet.NewReadings(c)
//	err := readings.Append(ctx, fleet.ReadingsRow{Tsp: time.Now(), Machine: typed.Ptr("m1"), Temperature: typed.Ptr(21.5)})
//	rows, err := readings.History(ctx, &fleet.ReadingsQuery{
//		Limit:     100,
//		TimeRange: client.Since(time.Now().Add(-time.Hour)),
//		Where:     fleet.Readings.Temperature.Gt(30).And(fleet.Readings.Label.In("a", "b")),
//	})
//
// # Rows
//
// A row struct has a field per column: time.Time for the tsp of a table,
// a pointer for every other column (*float64 numeric, *int64 bigint,
// *time.Time timestamp, *bool boolean, *string string: nil is NULL),
// json.RawMessage for json (nil is NULL) and secrets.Value for a secret
// column; DeviceKey and AuthID, which the platform sets, come back on
// reads and are not written. A nil field is left out of a write: on a
// table with an entity key the entity's latest value then stays (the
// platform's merge insert), elsewhere the column is NULL. A row without a
// tsp (the zero time) is refused before anything is sent.
//
// The rows' json tags are the shape reads return, flat by column id, so
// client.DecodeRows and TableEvent.Decode fill them too. Writes follow the
// data template's column paths instead: a column at
// args[0].sensor.vibration is written nested in the row object, one at
// kwargs.NAME as a keyword argument, one at args[1] as the second
// positional argument. A column the writer cannot set (under details,
// which the router fills, or whose path holds another column) is read
// only. A bulk write carries one row object per row and one set of
// keyword arguments: its rows must agree on the columns written to
// kwargs, and a table with a column at args[1] or beyond has no bulk
// writes (both refused before sending, client.ErrInvalidArgument).
//
// # Columns
//
// Each column is typed by its data type: NumberColumn (numeric and
// bigint), StringColumn, TimeColumn, BoolColumn, JSONColumn and
// SecretColumn. Filters take values of the column's type (Gt(3) on a
// numeric column, In("a", "b") on a string column); a secret column has
// no filters, since the platform refuses them. The row type is a type
// parameter of every column, filter and query, so a filter of one table
// does not compile in the query of another.
//
// Series metrics are typed by what they return: Avg and Sum give float64,
// Count int64, Min, Max, First and Last the column's type; Metric.Of reads
// a metric from a row of the answer, Column.Of a grouped column.
//
// # Other apps
//
// Shared and SharedView read the tables and transforms another app shares
// (package crossapp); their row structs leave out the provider's secret
// columns, which a consumer never sees.
//
// Every operation is the one of package client (or crossapp, secrets,
// files) of the same purpose, with its behaviour and errors; refusals of
// this package are *client.OpError values naming "typed.<Operation>" and
// the table, wrapping client.ErrInvalidArgument.
package typed
