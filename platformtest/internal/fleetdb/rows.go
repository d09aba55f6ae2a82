// This file names the rows seam (package store) as the data service uses
// it: the backend keeps a realm's rows in a store.Tables opened from a
// store.Schema, and is asked with the queries of the seam. It serves no
// URI.

package fleetdb

import "github.com/flockgo/ironflock/platformtest/internal/store"

// Store keeps the rows of a platform's data backends (store.Rows).
type Store = store.Rows

// The names of the seam the service's code uses.
type (
	Tables          = store.Tables
	Schema          = store.Schema
	TableSchema     = store.TableSchema
	TransformSchema = store.TransformSchema
	Column          = store.Column
	NewRow          = store.NewRow
	ReadQuery       = store.ReadQuery
	SeriesQuery     = store.SeriesQuery
	SeriesGroup     = store.SeriesGroup
	SeriesRef       = store.SeriesRef
	SeriesMetric    = store.SeriesMetric
	TransformQuery  = store.TransformQuery
	Bound           = store.Bound
	Filter          = store.Filter
	ValueKind       = store.ValueKind
	SQLResult       = store.SQLResult

	tri  = store.Tri
	cond = store.Cond
)

const (
	triFalse = store.TriFalse
	triTrue  = store.TriTrue
	triNull  = store.TriNull
)
