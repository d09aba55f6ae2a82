// This file holds the objects seam: where the file service
// (platformtest/internal/fleetfiles) keeps its objects, one bucket per
// realm's data backend, by namespace and key, each with its record (size,
// MD5, SHA-256, content type, last modified) and its content. The store
// records, finds, lists and drops; the rules (keys, namespaces, quotas,
// presigning, events) are the service's.

package store

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// ErrNotFound: what is asked for (an object, a bucket number) does not
// exist.
var ErrNotFound = errors.New("not found")

// Objects keeps the objects of every realm's data backend. It is safe for
// concurrent use.
type Objects interface {
	// Bucket returns the bucket of realm, making it the first time and
	// giving it the next bucket number, which it keeps as long as the
	// store keeps the bucket.
	Bucket(ctx context.Context, realm string) (Bucket, error)
	// RealmOf returns the realm whose bucket has number n, ErrNotFound
	// when none has (the store may find a bucket made before a restart).
	RealmOf(ctx context.Context, n int64) (string, error)
	// Drop removes the bucket of realm with every object and its number;
	// a realm without a bucket is no error. A later Bucket of the realm
	// starts empty, with a new number.
	Drop(ctx context.Context, realm string) error
	// Count returns how many objects the store keeps over every bucket.
	Count(ctx context.Context) (int64, error)
	// Close lets go of the store: a store in memory drops its objects,
	// a kept one keeps them for the next open.
	Close() error
}

// Bucket is the objects of one realm. Errors are plain: ErrNotFound,
// ErrFull (nothing of the write kept), *LimitError, or the storage's own
// failure.
type Bucket interface {
	// Number returns the bucket's number (the data backend's sad_key).
	Number() int64
	// Stat returns the record of ns/key.
	Stat(ctx context.Context, ns, key string) (Object, error)
	// Open returns the record of ns/key with its content, which the
	// caller closes.
	Open(ctx context.Context, ns, key string) (Object, Content, error)
	// Create starts the content of a new object of the announced size;
	// Put records it, Abort drops it.
	Create(ctx context.Context, size int64) (Writer, error)
	// Put records the content w received (w is done with: its content is
	// dropped on any error) as the object of meta, replacing the one with
	// its namespace and key, when the bucket's bytes fit limit afterwards
	// (0: no bound); otherwise it refuses with *LimitError. It returns
	// the new record.
	Put(ctx context.Context, meta Meta, w Writer, limit int64) (Object, error)
	// Copy records the content of ns/key as the object of meta, with the
	// limit of Put; ErrNotFound when ns/key does not exist.
	Copy(ctx context.Context, ns, key string, meta Meta, limit int64) (Object, error)
	// Delete removes ns/key and returns its record; ErrNotFound when
	// there is none.
	Delete(ctx context.Context, ns, key string) (Object, error)
	// List calls fn with the records of namespace ns whose key starts
	// with prefix and is ≥ from, by key, until fn returns more false; fn
	// may return skip, a key to go on from (the keys before it are not
	// visited).
	List(ctx context.Context, ns, prefix, from string, fn func(o Object) (skip string, more bool)) error
	// All calls fn with every record, by namespace and key, until fn
	// returns false.
	All(ctx context.Context, fn func(o Object) bool) error
	// Expire removes the objects of namespace ns last modified at upTo
	// or before.
	Expire(ctx context.Context, ns string, upTo time.Time) error
	// DropNamespace removes every object of namespace ns.
	DropNamespace(ctx context.Context, ns string) error
	// Usage returns the bytes stored per namespace (namespaces holding
	// objects) and the number of objects.
	Usage(ctx context.Context) (perNS map[string]int64, count int64, err error)
}

// Object is an object's record.
type Object struct {
	Namespace, Key string
	Size           int64
	MD5            string // hex: the etag
	SHA256         string // hex
	ContentType    string
	Modified       time.Time
}

// Meta is what a Put or a Copy records besides the content.
type Meta struct {
	Namespace, Key string
	ContentType    string
	Modified       time.Time
}

// Content is the bytes of a stored object, open for reading. A store that
// checks what it serves fails a read of damaged content (and a Reader's
// last bytes of it) with an error.
type Content interface {
	io.ReaderAt
	// Reader returns a reader of the whole content.
	Reader() io.ReadSeeker
	// Close lets go of the content.
	Close() error
}

// Writer receives the bytes of new content (Bucket.Create).
type Writer interface {
	io.Writer
	io.ReaderFrom
	// Abort drops what was written; the Writer is done with.
	Abort()
}

// LimitError refuses a Put or a Copy that would leave the bucket holding
// more bytes than the caller's limit.
type LimitError struct {
	Used  int64 // bytes stored before the write
	Limit int64 // the caller's bound
	Size  int64 // the object's
}

// Error says what would not fit.
func (e *LimitError) Error() string {
	return fmt.Sprintf("%d of %d bytes used, the object needs %d", e.Used, e.Limit, e.Size)
}

// CheckLimit returns the *LimitError of a write of size bytes that leaves
// after bytes stored (used before it) when that passes limit (0: no
// bound), nil otherwise.
func CheckLimit(used, after, size, limit int64) error {
	if limit == 0 || after <= limit {
		return nil
	}
	return &LimitError{Used: used, Limit: limit, Size: size}
}
