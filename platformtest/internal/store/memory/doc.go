// Package memory is the rows backend that keeps nothing: every realm's
// rows in memory for the life of the store (store.Rows; platformtest's
// default, flockd without -data or -db). Reads in Go follow the reference
// semantics of the seam (store.Filter.Match, store.SeriesBuilder); the
// store can be bounded by rows and by estimated bytes (RowLimit,
// ByteLimit), past which writes fail with store.ErrFull. It does not
// compute transforms (it is given their rows), applies no retention and
// gives no direct SQL: those calls answer store.ErrNotSupported.
package memory
