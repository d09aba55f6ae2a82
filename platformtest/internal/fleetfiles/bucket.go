// This file holds a bucket: the objects of one realm's data backend, in
// every namespace of the app (a namespace is a key prefix carrying
// policy; all share one storage area and one budget), with their
// descriptors, the quota check of a write, and the test hooks' view of
// it. It serves no URI.

package fleetfiles

import (
	"fmt"
	"maps"
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
	svc *Service
	ri  realm.Info
	tpl *template.DataTemplate
	sad int64 // the data backend's key in URLs

	mu      sync.Mutex // guards what follows
	host    *realm.Host
	objects map[objectID]*object
	used    int64 // bytes stored
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

// lookup returns an object, nil when it does not exist. The caller holds
// b.mu.
func (b *bucket) lookup(ns, key string) *object { return b.objects[objectID{ns, key}] }

// stat returns an object's descriptor, or NO_SUCH_OBJECT.
func (b *bucket) stat(ns, key string) (map[string]any, *failure) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o := b.lookup(ns, key)
	if o == nil {
		return nil, noSuchObject(ns, key)
	}
	return o.descriptor(), nil
}

func noSuchObject(ns, key string) *failure {
	return refuse(wire.FileNoSuchObject, "no object %q in namespace %q", key, ns)
}

// open returns an object and a reference to its blob, which the caller
// releases; NO_SUCH_OBJECT when it does not exist.
func (b *bucket) open(ns, key string) (object, *failure) {
	b.mu.Lock()
	defer b.mu.Unlock()
	o := b.lookup(ns, key)
	if o == nil {
		return object{}, noSuchObject(ns, key)
	}
	cp := *o
	cp.blob = o.blob.acquire()
	return cp, nil
}

// checkFits checks an object of size bytes with content type ct against
// namespace ns's policy: content types and maxObjectBytes.
func checkFits(ns *template.Namespace, size int64, ct string) *failure {
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

// checkQuota checks that size bytes replacing the object ns/key fit the
// budget. The caller holds b.mu.
func (b *bucket) checkQuota(ns, key string, size int64) *failure {
	quota := b.svc.quota(b.ri.Name)
	if quota == 0 {
		return nil
	}
	after := b.used + size
	if o := b.lookup(ns, key); o != nil {
		after -= o.blob.size
	}
	if after > quota {
		return refuse(wire.FileQuotaExceeded, "the filestore is full: %d of %d bytes used, the object needs %d",
			b.used, quota, size)
	}
	return nil
}

// commit stores blob (its reference passes to the bucket) as ns/key after
// the quota check, publishes the event and returns the new object (whose
// fields never change). On failure the blob is released.
func (b *bucket) commit(ns, key string, bl *blob, ct string, now time.Time) (*object, *failure) {
	b.mu.Lock()
	if f := b.checkQuota(ns, key, bl.size); f != nil {
		b.mu.Unlock()
		bl.release()
		return nil, f
	}
	o := &object{objectID: objectID{ns, key}, blob: bl, contentType: ct, modified: now}
	old := b.objects[o.objectID]
	b.objects[o.objectID] = o
	b.used += bl.size
	if old != nil {
		b.used -= old.blob.size
	}
	b.mu.Unlock()
	if old != nil {
		old.blob.release()
	}
	b.publish(wire.FileActionPut, ns, o.descriptor())
	return o, nil
}

// remove deletes ns/key and reports whether it existed.
func (b *bucket) remove(ns, key string) bool {
	b.mu.Lock()
	o := b.objects[objectID{ns, key}]
	if o != nil {
		delete(b.objects, o.objectID)
		b.used -= o.blob.size
	}
	b.mu.Unlock()
	if o == nil {
		return false
	}
	o.blob.release()
	b.publish(wire.FileActionDelete, ns, o.descriptor())
	return true
}

// clear drops every object.
func (b *bucket) clear() {
	b.mu.Lock()
	objs := b.objects
	b.objects = map[objectID]*object{}
	b.used = 0
	b.mu.Unlock()
	for _, o := range objs {
		o.blob.release()
	}
}

// sorted returns the objects of namespace ns whose key starts with
// prefix, by key. The caller holds b.mu.
func (b *bucket) sorted(ns, prefix string) []*object {
	var out []*object
	for id, o := range b.objects {
		if id.ns == ns && strings.HasPrefix(id.key, prefix) {
			out = append(out, o)
		}
	}
	slices.SortFunc(out, func(x, y *object) int { return strings.Compare(x.key, y.key) })
	return out
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
// retention.
func (h *Bucket) Objects() []ObjectInfo {
	h.b.sweep(h.b.svc.cfg.Clock.Now())
	h.b.mu.Lock()
	defer h.b.mu.Unlock()
	ids := slices.SortedFunc(maps.Keys(h.b.objects), func(x, y objectID) int {
		if c := strings.Compare(x.ns, y.ns); c != 0 {
			return c
		}
		return strings.Compare(x.key, y.key)
	})
	out := make([]ObjectInfo, len(ids))
	for i, id := range ids {
		out[i] = h.b.objects[id].info()
	}
	return out
}

// Content returns a copy of an object's bytes, false when it does not
// exist.
func (h *Bucket) Content(ns, key string) ([]byte, bool, error) {
	o, f := h.b.open(ns, key)
	if f != nil {
		return nil, false, nil
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
	o, f := h.b.commit(nsName, key, newMemBlob(slices.Clone(data)), ct, h.b.svc.cfg.Clock.Now())
	if f != nil {
		return ObjectInfo{}, f
	}
	return o.info(), nil
}
