// Package datadir is flockd's data folder: the directory in which a
// platform keeps its world across restarts (flockd -data DIR,
// platformtest.WithDataDir). It owns the folder, not what the services put
// in it:
//
//	DIR/
//	  FORMAT        "flockd data folder format N": the layout's version
//	  COMMITS       each .db file's last acknowledged commit (commits.go)
//	  flockd.lock   the pid of the flockd holding the folder (flock)
//	  registry.db   a bbolt file per service that keeps records
//	  …             (fleet.db, files.db, …: opened with Dir.DB)
//	  files/        a folder per service that keeps blobs (Dir.Folder)
//
// Open takes the folder for one process (an exclusive flock on
// flockd.lock, refused with "DIR is in use by flockd pid N"), reads its
// format version (a newer one is refused naming both versions; an older
// one is upgraded in place by the steps of migrations.go after a copy of
// the folder is made beside it), and checks every bbolt file before any
// of them is opened for writing (check.go, pages.go): a damaged or
// truncated file is refused naming the file and what is wrong; it is never
// reset and never served half. A file that does not hold its last
// acknowledged commit (deleted, emptied, put back from an older copy, its
// newest meta page lost) is refused too: COMMITS records each file's
// commit after it is synced (commits.go).
//
// The embedded store is bbolt (go.etcd.io/bbolt): one file per service, a
// copy-on-write B+tree whose every commit is written and fsynced before
// Commit returns, so a kill at any moment leaves the last commit whole.
// DB.Update gathers the writes of concurrent callers into one transaction
// and one fsync (group commit); a caller's write is on disk when Update
// returns.
//
// Every value a service stores goes through Put (and is read back through
// Get or Value): it carries a CRC-32C of its key and bytes, so that the
// check at Open finds a damaged value as well as a damaged page. What a
// service generates once and must find again (a key) it stores with
// DB.Keep.
//
// A blob folder (Dir.Blobs, blobs.go) holds files written whole and
// synced before they get their name; the service records the name in its
// bbolt file afterwards and removes, when it opens the folder, the blobs
// that no record names.
//
// On a full disk a commit or a blob write fails with ErrFull and keeps
// nothing; reads go on (full.go). Dir.SimulateFull makes a folder behave
// so for tests.
package datadir
