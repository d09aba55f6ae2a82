// This file holds where a bucket keeps its objects (objectStore): the
// records (namespace, key, size, etag, checksum, content type, last
// modified) and the content, in memory (objects_mem.go, by default) or in
// the data folder (objects_bolt.go: records in files.db, content in the
// blob folder files/). A bucket (bucket.go) applies the service's rules
// and asks its store only to record, find, list and drop. It serves no
// URI.

package fleetfiles

import (
	"errors"
	"io"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// objectStore keeps the objects of one bucket. Every method is safe for
// concurrent use; errors are failures of the storage (a full disk),
// refusals by the rules are *failure.
type objectStore interface {
	// get returns the object ns/key with a reference to its content,
	// which the caller releases; nil when there is none.
	get(ns, key string) (*object, error)
	// put records o (whose blob reference passes to the store), replacing
	// the object with its id, when the bytes of the bucket fit quota
	// afterwards (0: no bound); otherwise it refuses with
	// QUOTA_EXCEEDED and drops o's blob. It returns the replaced object,
	// nil when there was none; the store has dropped its content.
	put(o *object, quota int64) (old *object, f *failure, err error)
	// fits reports QUOTA_EXCEEDED when size bytes stored as ns/key would
	// not fit quota.
	fits(ns, key string, size, quota int64) (*failure, error)
	// remove deletes ns/key and drops its content; nil when there was
	// none.
	remove(ns, key string) (*object, error)
	// scan calls fn with the objects of namespace ns whose key starts with
	// prefix and is ≥ from, by key, until fn returns more false; fn may
	// return skip, a key to go on from (skipping those before it).
	scan(ns, prefix, from string, fn func(o *object) (skip string, more bool)) error
	// all calls fn with every object, by namespace and key.
	all(fn func(o *object) bool) error
	// expire deletes the objects of namespace ns last modified at upTo
	// or before, dropping their content.
	expire(ns string, upTo time.Time) error
	// removeNamespace deletes every object of namespace ns (the
	// namespace left the data template), dropping their content.
	removeNamespace(ns string) error
	// usage returns the bytes stored per namespace and the number of
	// objects.
	usage() (perNS map[string]int64, count int64, err error)
	// newBlob starts the content of a new object of the announced size.
	newBlob(size int64) (blobWriter, error)
	// copyBlob returns a reference to new content holding what bl holds
	// (bl stays the caller's).
	copyBlob(bl *blob) (*blob, error)
	// clear drops every object (a realm's bucket removed).
	clear() error
	// close lets go of what the store holds in memory; the kept objects
	// stay.
	close()
}

// blobWriter receives the bytes of new content.
type blobWriter interface {
	Write(p []byte) (int, error)
	ReadFrom(r io.Reader) (int64, error)
	// finish returns the written content, with one reference.
	finish() (*blob, error)
	// abort drops what was written.
	abort()
}

// objectID names an object in a bucket.
type objectID struct{ ns, key string }

// object is a stored object.
type object struct {
	objectID
	blob        *blob
	contentType string
	modified    time.Time
}

// storageFailure is the refusal of a write the storage could not take:
// INTERNAL, as fleetfiles answers for a failure of its object store, with
// a reason that says a full disk is one.
func storageFailure(what string, err error) *failure {
	if errors.Is(err, datadir.ErrFull) {
		return refuse(wire.FileInternal, "%s: %s (no space left on the platform's disk); reads still work, and writes again once space is freed: %v", what, storageFullReason, err)
	}
	return refuse(wire.FileInternal, "%s: %v", what, err)
}

// storageFullReason is in the reason of every write refused for a full
// disk.
const storageFullReason = "the object store is full"
