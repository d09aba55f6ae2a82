// This file holds a bucket: the objects of one realm's data backend, in
// every namespace of the app (a namespace is a key prefix carrying
// policy; all share one storage area and one budget), with their
// descriptors, the quota check of a write, and the test hooks' view of
// it. Where the objects are kept is the bucket's store.Bucket (the
// platform's choice). It serves no URI.

package fleetfiles

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// defaultContentType is the content type of an object stored without one.
const defaultContentType = "application/octet-stream"

// bucket holds the objects of one realm.
type bucket struct {
	svc   *Service
	ri    realm.Info
	tpl   *template.DataTemplate
	sad   int64        // the data backend's key in URLs
	store store.Bucket // where the objects are kept

	mu   sync.Mutex // guards host
	host *realm.Host
}

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

// open returns an object with its content, which the caller closes;
// NO_SUCH_OBJECT when it does not exist.
func (b *bucket) open(ns, key string) (store.Object, store.Content, *failure) {
	o, c, err := b.store.Open(context.Background(), ns, key)
	if err != nil {
		return store.Object{}, nil, readFailure(ns, key, "reading the object", err)
	}
	return o, c, nil
}

// find returns an object's record, or NO_SUCH_OBJECT.
func (b *bucket) find(ns, key string) (store.Object, *failure) {
	o, err := b.store.Stat(context.Background(), ns, key)
	if err != nil {
		return store.Object{}, readFailure(ns, key, "reading the object", err)
	}
	return o, nil
}

// readFailure is NO_SUCH_OBJECT for an object the store has not, the
// storage's failure otherwise.
func readFailure(ns, key, what string, err error) *failure {
	if errors.Is(err, store.ErrNotFound) {
		return noSuchObject(ns, key)
	}
	return storageFailure(what, err)
}

// stat returns an object's descriptor, or NO_SUCH_OBJECT.
func (b *bucket) stat(ns, key string) (map[string]any, *failure) {
	o, f := b.find(ns, key)
	if f != nil {
		return nil, f
	}
	return descriptor(o), nil
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
	return quotaRefusal(used, quota, size)
}

// quotaRefusal is QUOTA_EXCEEDED for a write of size bytes with used of
// quota bytes stored.
func quotaRefusal(used, quota, size int64) *failure {
	return refuse(wire.FileQuotaExceeded, "the filestore is full: %d of %d bytes used, the object needs %d", used, quota, size)
}

// checkQuota checks, before the content is written, that size bytes
// replacing the object ns/key fit the budget; the store checks again as
// it records the object.
func (b *bucket) checkQuota(ns, key string, size int64) *failure {
	quota := b.svc.quota(b.ri.Name)
	if quota == 0 {
		return nil
	}
	ctx := context.Background()
	per, _, err := b.store.Usage(ctx)
	if err != nil {
		return storageFailure("checking the quota", err)
	}
	var used int64
	for _, n := range per {
		used += n
	}
	after := used + size
	old, err := b.store.Stat(ctx, ns, key)
	switch {
	case err == nil:
		after -= old.Size
	case !errors.Is(err, store.ErrNotFound):
		return storageFailure("checking the quota", err)
	}
	return quotaFailure(used, after, size, quota)
}

// newContent starts the content of a new object of the announced size.
func (b *bucket) newContent(size int64) (store.Writer, *failure) {
	w, err := b.store.Create(context.Background(), size)
	if err != nil {
		return nil, storageFailure("storing the object", err)
	}
	return w, nil
}

// storeBytes writes data as new content.
func (b *bucket) storeBytes(data []byte) (store.Writer, *failure) {
	w, f := b.newContent(int64(len(data)))
	if f != nil {
		return nil, f
	}
	if _, err := w.Write(data); err != nil {
		w.Abort()
		return nil, storageFailure("storing the object", err)
	}
	return w, nil
}

// commit records the content w received as ns/key (with the quota),
// publishes the event and returns the new object. On failure the content
// is dropped.
func (b *bucket) commit(ns, key string, w store.Writer, ct string, now time.Time) (store.Object, *failure) {
	meta := store.Meta{Namespace: ns, Key: key, ContentType: ct, Modified: now}
	o, err := b.store.Put(context.Background(), meta, w, b.svc.quota(b.ri.Name))
	if err != nil {
		return store.Object{}, writeFailure("storing the object", err)
	}
	b.stored(o)
	return o, nil
}

// stored counts and publishes a new object.
func (b *bucket) stored(o store.Object) {
	b.svc.met.stored.Add(uint64(o.Size))
	b.publish(wire.FileActionPut, o.Namespace, descriptor(o))
}

// remove deletes ns/key and reports whether it existed.
func (b *bucket) remove(ns, key string) (bool, *failure) {
	o, err := b.store.Delete(context.Background(), ns, key)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return false, nil
	case err != nil:
		return false, storageFailure("deleting the object", err)
	}
	b.publish(wire.FileActionDelete, ns, descriptor(o))
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

func info(o store.Object) ObjectInfo {
	return ObjectInfo{Namespace: o.Namespace, Key: o.Key, Size: o.Size, ETag: o.MD5,
		ContentType: o.ContentType, ChecksumSHA256: o.SHA256, LastModified: o.Modified}
}

// Objects returns the stored objects ordered by namespace and key, after
// retention. A data folder that cannot be read is logged and shows what
// was read.
func (h *Bucket) Objects() []ObjectInfo {
	h.b.sweep(h.b.svc.cfg.Clock.Now())
	var out []ObjectInfo
	err := h.b.store.All(context.Background(), func(o store.Object) bool {
		out = append(out, info(o))
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
	o, c, f := h.b.open(ns, key)
	if f != nil {
		if f.code == wire.FileNoSuchObject {
			return nil, false, nil
		}
		return nil, false, f
	}
	defer c.Close()
	data := make([]byte, o.Size)
	if _, err := c.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return nil, false, err
	}
	return data, true, nil
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
	w, f := h.b.storeBytes(data)
	if f != nil {
		return ObjectInfo{}, f
	}
	o, f := h.b.commit(nsName, key, w, ct, h.b.svc.cfg.Clock.Now())
	if f != nil {
		return ObjectInfo{}, f
	}
	return info(o), nil
}
