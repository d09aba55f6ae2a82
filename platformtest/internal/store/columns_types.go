// This file describes each column type of a data template once
// (ColumnType): how a write's value is stored, how a stored value goes
// out on the wire, how a filter compares a bare column, its PostgreSQL
// type and how a stored value is written to and scanned from it. A new template.DataType is one entry in TypeOf, whose
// switch the exhaustive check of .ci/run keeps complete; the switches
// over the type elsewhere are checked the same way.

package store

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/flockgo/ironflock/template"
)

// The range of PostgreSQL's timestamptz in epoch milliseconds: 4713 BC
// to 294276 AD.
const (
	SQLMinMs = -210866803200000
	SQLMaxMs = 9224318016000000
)

// ColumnType is what the platform does with the values of one column
// type.
type ColumnType struct {
	// Type is the template's name of the type.
	Type template.DataType
	// Store applies the type's storage typing to a defined value that is
	// not a json object or list (StoreValue checks those): the stored
	// value (nil for NULL) or the SQLSTATE the insert fails with.
	Store func(v any) (any, string)
	// Out types a non-NULL stored value for a read or a feed
	// (docs/wire.md §7.6).
	Out func(v any) any
	// Kind is how a filter on a bare column of the type compares
	// (Filter).
	Kind ValueKind
	// SQL is the type of the column in PostgreSQL, as format_type names
	// it.
	SQL string
	// SQLArg is a non-NULL stored value as the parameter that writes it
	// to a column of type SQL, or the SQL error the insert fails with.
	SQLArg func(v any) (any, error)
	// SQLScan is the stored form of a non-NULL value the driver read from
	// a column of type SQL; false when the value is not of that type.
	SQLScan func(v any) (any, bool)
}

// identity is the output form of types stored as they go out.
func identity(v any) any { return v }

// asStored is the SQL parameter of types stored as PostgreSQL takes them.
func asStored(v any) (any, error) { return v, nil }

// scanAs returns the SQLScan of a type the driver reads as T, stored as
// read.
func scanAs[T any](v any) (any, bool) {
	x, ok := v.(T)
	return x, ok
}

// timestampArg is a stored timestamp (epoch milliseconds) as timestamptz,
// refused outside its range.
func timestampArg(v any) (any, error) {
	ms := v.(int64)
	if ms < SQLMinMs || ms >= SQLMaxMs {
		return nil, &SQLError{Code: CodeDatetimeOutOfRange, Msg: "timestamp out of range: " + strconv.FormatInt(ms, 10) + " ms"}
	}
	return time.UnixMilli(ms).UTC(), nil
}

// timestampScan is a timestamptz read back as epoch milliseconds.
func timestampScan(v any) (any, bool) {
	x, ok := v.(time.Time)
	if !ok {
		return nil, false
	}
	return x.UnixMilli(), true
}

// jsonArg is a stored json value as jsonb text.
func jsonArg(v any) (any, error) { return json.Marshal(JSONOut(v)) }

// jsonScan takes what the driver decoded from jsonb as it is.
func jsonScan(v any) (any, bool) { return v, true }

var (
	numericType = ColumnType{Type: template.TypeNumeric, Store: storeNumeric,
		Out: func(v any) any { return NumberOut(v.(float64)) }, Kind: KindNumber, SQL: "double precision",
		SQLArg: asStored, SQLScan: scanAs[float64]}
	bigintType = ColumnType{Type: template.TypeBigint, Store: func(v any) (any, string) { return BigintValue(v), "" },
		Out: identity, Kind: KindNumber, SQL: "bigint", SQLArg: asStored, SQLScan: scanAs[int64]}
	timestampType = ColumnType{Type: template.TypeTimestamp, Store: storeTimestamp, Out: func(v any) any {
		if ms, ok := v.(int64); ok {
			return ISOTime(ms)
		}
		return v
	}, Kind: KindTime, SQL: "timestamp with time zone", SQLArg: timestampArg, SQLScan: timestampScan}
	stringType = ColumnType{Type: template.TypeString, Store: storeString, Out: identity, Kind: KindText, SQL: "text",
		SQLArg: asStored, SQLScan: scanAs[string]}
	booleanType = ColumnType{Type: template.TypeBoolean, Store: storeBoolean, Out: identity, Kind: KindBool, SQL: "boolean",
		SQLArg: asStored, SQLScan: scanAs[bool]}
	jsonType = ColumnType{Type: template.TypeJSON, Store: func(v any) (any, string) { return JSONValue(v), "" },
		Out: JSONOut, Kind: KindJSON, SQL: "jsonb", SQLArg: jsonArg, SQLScan: jsonScan}
)

// TypeOf returns the description of a column type; an unknown type (a
// template is validated before) is taken as string.
func TypeOf(t template.DataType) *ColumnType {
	switch t {
	case template.TypeNumeric:
		return &numericType
	case template.TypeBigint:
		return &bigintType
	case template.TypeTimestamp:
		return &timestampType
	case template.TypeString:
		return &stringType
	case template.TypeBoolean:
		return &booleanType
	case template.TypeJSON:
		return &jsonType
	}
	return &stringType
}
