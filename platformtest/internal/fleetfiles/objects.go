// This file holds what the service makes of its object store
// (store.Objects, chosen by the platform): the wire form of a record, and
// the refusals of the store's plain errors. It serves no URI.

package fleetfiles

import (
	"errors"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// descriptor is the wire form of an object (docs/wire.md §7.15), with
// last_modified in ISO 8601 UTC with milliseconds.
func descriptor(o store.Object) map[string]any {
	return map[string]any{
		wire.FieldNamespace:      o.Namespace,
		wire.FieldKey:            o.Key,
		wire.FieldSize:           o.Size,
		wire.FieldETag:           o.MD5,
		wire.FieldContentType:    o.ContentType,
		wire.FieldLastModified:   o.Modified.UTC().Format(isoMillis),
		wire.FieldChecksumSHA256: o.SHA256,
	}
}

// isoMillis is the time format of last_modified.
const isoMillis = "2006-01-02T15:04:05.000Z07:00"

// storageFailure is the refusal of what the storage could not do:
// INTERNAL, as fleetfiles answers for a failure of its object store, with
// a reason that says a full disk is one.
func storageFailure(what string, err error) *failure {
	if errors.Is(err, store.ErrFull) {
		return refuse(wire.FileInternal, "%s: %s (no space left on the platform's disk); reads still work, and writes again once space is freed: %v", what, storageFullReason, err)
	}
	return refuse(wire.FileInternal, "%s: %v", what, err)
}

// storageFullReason is in the reason of every write refused for a full
// disk.
const storageFullReason = "the object store is full"

// writeFailure is the refusal of a Put or a Copy the store did not take:
// QUOTA_EXCEEDED past the budget, a storage failure otherwise.
func writeFailure(what string, err error) *failure {
	var le *store.LimitError
	if errors.As(err, &le) {
		return quotaRefusal(le.Used, le.Limit, le.Size)
	}
	return storageFailure(what, err)
}
