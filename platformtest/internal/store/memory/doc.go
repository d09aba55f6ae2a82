// Package memory is the storage backend that keeps nothing beyond the
// process: every seam of package store held in memory for the life of the
// store (platformtest's default, flockd without -data or -db).
//
// Rows (store.Rows): reads in Go follow the reference semantics of the
// seam (store.Filter.Match, store.SeriesBuilder); the store can be bounded
// by rows and by estimated bytes (RowLimit, ByteLimit), past which writes
// fail with store.ErrFull. It does not compute transforms (it is given
// their rows), applies no retention and gives no direct SQL: those calls
// answer store.ErrNotSupported.
//
// Objects (store.Objects, objects*.go), keys (store.Keys, keys.go) and
// entities (entities.go) are kept in maps; large object content may spill
// to a temporary file (objects_spill*.go).
package memory
