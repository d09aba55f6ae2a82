// Package folder is the rows backend of a data folder (flockd -data,
// platformtest.WithDataDir): every realm's rows in the bbolt file
// fleet.db of the folder (package datadir), keyed (tsp, sequence) so that
// newest-first reads seek to their range's end and stop at their limit,
// the newest row per entity and UNIQUE (entity key, tsp) as buckets, and a
// catalog of slots per table so that a template may add columns without
// rewriting rows. Each append is one transaction of the folder's group
// commit; a full disk is store.ErrFull. It keeps the key of secret
// columns beside the rows (keys.go). It does not compute transforms (it
// is given their rows), applies no retention and gives no direct SQL:
// those calls answer store.ErrNotSupported.
package folder
