// Package folder is the storage backend of a data folder (flockd -data,
// platformtest.WithDataDir): every seam of package store kept in the
// folder's bbolt files (package datadir).
//
// Rows (store.Rows): every realm's rows in fleet.db, keyed (tsp, sequence)
// so that newest-first reads seek to their range's end and stop at their
// limit, the newest row per entity and UNIQUE (entity key, tsp) as
// buckets, and a catalog of slots per table so that a template may add
// columns without rewriting rows. Each append is one transaction of the
// folder's group commit; a full disk is store.ErrFull. It does not compute
// transforms (it is given their rows), applies no retention and gives no
// direct SQL: those calls answer store.ErrNotSupported.
//
// Objects (store.Objects, objects*.go): records in files.db and content
// in files/. Keys (store.Keys, keys.go): each key in the file of what it
// protects. Entities (entities.go): the registry's documents.
package folder
