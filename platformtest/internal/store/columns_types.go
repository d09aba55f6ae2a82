// This file describes each column type of a data template once
// (ColumnType): how a write's value is stored, how a stored value goes
// out on the wire, how a filter compares a bare column, and its
// PostgreSQL type. A new template.DataType is one entry in TypeOf, whose
// switch the exhaustive check of .ci/run keeps complete; the switches
// over the type elsewhere are checked the same way.

package store

import "github.com/flockgo/ironflock/template"

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
}

// identity is the output form of types stored as they go out.
func identity(v any) any { return v }

var (
	numericType = ColumnType{Type: template.TypeNumeric, Store: storeNumeric,
		Out: func(v any) any { return NumberOut(v.(float64)) }, Kind: KindNumber, SQL: "double precision"}
	bigintType = ColumnType{Type: template.TypeBigint, Store: func(v any) (any, string) { return BigintValue(v), "" },
		Out: identity, Kind: KindNumber, SQL: "bigint"}
	timestampType = ColumnType{Type: template.TypeTimestamp, Store: storeTimestamp, Out: func(v any) any {
		if ms, ok := v.(int64); ok {
			return ISOTime(ms)
		}
		return v
	}, Kind: KindTime, SQL: "timestamp with time zone"}
	stringType  = ColumnType{Type: template.TypeString, Store: storeString, Out: identity, Kind: KindText, SQL: "text"}
	booleanType = ColumnType{Type: template.TypeBoolean, Store: storeBoolean, Out: identity, Kind: KindBool, SQL: "boolean"}
	jsonType    = ColumnType{Type: template.TypeJSON, Store: func(v any) (any, string) { return JSONValue(v), "" },
		Out: JSONOut, Kind: KindJSON, SQL: "jsonb"}
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
