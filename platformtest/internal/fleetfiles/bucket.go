// This file holds a bucket: the objects of one realm's data backend, in
// every namespace of the app (a namespace is a key prefix carrying
// policy; all share one storage area and one budget), with their
// descriptors, the quota check of a write, and the test hooks' view of
// it. Where the objects are kept is the bucket's objectStore (objects.go).
// It serves no URI.

package fleetfiles

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// defaultContentType is the content type of an object stored without one.
const defaultContentType = "application/octet-stream"

// bucket holds the objects of one realm.
type bucket struct {
	svc   *Service
	ri    realm.Info
	tpl   *template.DataTemplate
	sad   int64       // the data backend's key in URLs
	store objectStore // where the objects are kept

	mu   sync.Mutex // guards host
	host *realm.Host
}

// descriptor is the wire form of an object (docs/wire.md §7.15), with
// last_modified in ISO 8601 UTC with milliseconds.
func (o *object) descriptor() map[string]any {
	return map[string]any{
		wire.FieldNamespace:      o.ns,
		wire.FieldKey:            o.key,
		wire.FieldSize:           o.blob.size,
		wire.FieldETag:           o.blob.md5,
		wire.FieldContentType:    o.contentType,
		wire.FieldLastModified:   o.modified.UTC().Format(isoMillis),
		wire.FieldChecksumSHA256: o.blob.sha256,
	}
}

// isoMillis is the time format of last_modified.
const isoMillis = "2006-01-02T15:04:05.000Z07:00"

// bucketName is the object store's name of the bucket: if-<S>-<sad_key>.
func (b *bucket) bucketName() string { return fmt.Sprintf("if-%d-%d", b.ri.Swarm, b.sad) }

// namespace returns a namespace of the app: "default" or one its template
// declares.
func (b *bucket) namespace(name string) (*template.Namespace, *failure) {
	ns, ok := b.tpl.Namespace(name)
	if !ok {
		return nil, refuse(wire.FileNoSuchNamespace, "namespace %q is not declared in the app's data template; the app's namespaces: %s",
			name, strings.Join(b.tpl.NamespaceNames(), ", "))
	}
	return ns, nil
}

func noSuchObject(ns, key string) *failure {
	return refuse(wire.FileNoSuchObject, "no object %q in namespace %q", key, ns)
}

// open returns an object with a reference to its blob, which the caller
// releases; NO_SUCH_OBJECT when it does not exist.
func (b *bucket) open(ns, key string) (*object, *failure) {
	o, err := b.store.get(ns, key)
	if err != nil {
		return nil, storageFailure("reading the object", err)
	}
	if o == nil {
		return nil, noSuchObject(ns, key)
	}
	return o, nil
}

// stat returns an object's descriptor, or NO_SUCH_OBJECT.
func (b *bucket) stat(ns, key string) (map[string]any, *failure) {
	o, f := b.open(ns, key)
	if f != nil {
		return nil, f
	}
	o.blob.release()
	return o.descriptor(), nil
}

// checkFits checks an object of size bytes with content type ct against
// namespace ns's policy: content types and maxObjectBytes.
func checkFits(ns *template.Namespace, size int64, ct string) *failure {
	if f := checkContentType(ct); f != nil {
		return f
	}
	if !contentTypeAllowed(ns.ContentTypes, ct) {
		return refuse(wire.FileContentTypeNotAllowed, "content type %q is not allowed in namespace %q; allowed: %s",
			ct, ns.Name, strings.Join(ns.ContentTypes, ", "))
	}
	if size > ns.MaxObjectBytes {
		return refuse(wire.FileObjectTooLarge, "object of %d bytes exceeds the maxObjectBytes of namespace %q (%d)",
			size, ns.Name, ns.MaxObjectBytes)
	}
	return nil
}

// quotaFailure refuses a write of size bytes that would leave after bytes
// stored, used before it, when that passes quota (0: no bound).
func quotaFailure(used, after, size, quota int64) *failure {
	if quota == 0 || after <= quota {
		return nil
	}
	return refuse(wire.FileQuotaExceeded, "the filestore is full: %d of %d bytes used, the object needs %d", used, quota, size)
}

// checkQuota checks that size bytes replacing the object ns/key fit the
// budget.
func (b *bucket) checkQuota(ns, key string, size int64) *failure {
	f, err := b.store.fits(ns, key, size, b.svc.quota(b.ri.Name))
	if err != nil {
		return storageFailure("checking the quota", err)
	}
	return f
}

// newBlob starts the content of a new object of the announced size.
func (b *bucket) newBlob(size int64) (blobWriter, *failure) {
	w, err := b.store.newBlob(size)
	if err != nil {
		return nil, storageFailure("storing the object", err)
	}
	return w, nil
}

// storeBytes stores data as new content.
func (b *bucket) storeBytes(data []byte) (*blob, *failure) {
	if b.svc.cfg.Records == nil {
		return newMemBlob(data), nil
	}
	w, f := b.newBlob(int64(len(data)))
	if f != nil {
		return nil, f
	}
	if _, err := w.Write(data); err != nil {
		w.abort()
		return nil, storageFailure("storing the object", err)
	}
	bl, err := w.finish()
	if err != nil {
		return nil, storageFailure("storing the object", err)
	}
	return bl, nil
}

// commit stores blob (its reference passes to the bucket) as ns/key after
// the quota check, publishes the event and returns the new object (whose
// fields never change). On failure the blob is dropped.
func (b *bucket) commit(ns, key string, bl *blob, ct string, now time.Time) (*object, *failure) {
	o := &object{objectID: objectID{ns, key}, blob: bl, contentType: ct, modified: now}
	_, f, err := b.store.put(o, b.svc.quota(b.ri.Name))
	if err != nil {
		return nil, storageFailure("storing the object", err)
	}
	if f != nil {
		return nil, f
	}
	b.svc.met.stored.Add(uint64(bl.size))
	b.publish(wire.FileActionPut, ns, o.descriptor())
	return o, nil
}

// remove deletes ns/key and reports whether it existed.
func (b *bucket) remove(ns, key string) (bool, *failure) {
	o, err := b.store.remove(ns, key)
	if err != nil {
		return false, storageFailure("deleting the object", err)
	}
	if o == nil {
		return false, nil
	}
	b.publish(wire.FileActionDelete, ns, o.descriptor())
	return true, nil
}

// Bucket is the test hooks' view of a realm's objects.
type Bucket struct{ b *bucket }

// ObjectInfo is a stored object as the test hooks show it.
type ObjectInfo struct {
	Namespace, Key string
	Size           int64
	ETag           string
	ContentType    string
	ChecksumSHA256 string
	LastModified   time.Time
}

func (o *object) info() ObjectInfo {
	return ObjectInfo{Namespace: o.ns, Key: o.key, Size: o.blob.size, ETag: o.blob.md5,
		ContentType: o.contentType, ChecksumSHA256: o.blob.sha256, LastModified: o.modified}
}

// Objects returns the stored objects ordered by namespace and key, after
// retention. A data folder that cannot be read is logged and shows what
// was read.
func (h *Bucket) Objects() []ObjectInfo {
	h.b.sweep(h.b.svc.cfg.Clock.Now())
	var out []ObjectInfo
	err := h.b.store.all(func(o *object) bool {
		out = append(out, o.info())
		return true
	})
	if err != nil {
		h.b.svc.cfg.Log.Error("files: objects not read", "realm", h.b.ri.Name, "err", err)
	}
	return out
}

// Content returns a copy of an object's bytes, false when it does not
// exist.
func (h *Bucket) Content(ns, key string) ([]byte, bool, error) {
	o, f := h.b.open(ns, key)
	if f != nil {
		if f.code == wire.FileNoSuchObject {
			return nil, false, nil
		}
		return nil, false, f
	}
	defer o.blob.release()
	data, err := o.blob.bytes()
	return data, err == nil, err
}

// Store stores an object as an upload would, with the namespace's rules
// and the quota, and publishes its event.
func (h *Bucket) Store(nsName, key string, data []byte, ct string) (ObjectInfo, error) {
	if msg := checkKey(key); msg != "" {
		return ObjectInfo{}, refuse(wire.FileInvalidKey, "%s", msg)
	}
	ns, f := h.b.namespace(nsName)
	if f != nil {
		return ObjectInfo{}, f
	}
	if ct == "" {
		ct = defaultContentType
	}
	if f := checkFits(ns, int64(len(data)), ct); f != nil {
		return ObjectInfo{}, f
	}
	bl, f := h.b.storeBytes(slices.Clone(data))
	if f != nil {
		return ObjectInfo{}, f
	}
	o, f := h.b.commit(nsName, key, bl, ct, h.b.svc.cfg.Clock.Now())
	if f != nil {
		return ObjectInfo{}, f
	}
	return o.info(), nil
}
