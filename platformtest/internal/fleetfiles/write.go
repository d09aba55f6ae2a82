// This file serves writes through the router (docs/wire.md §7.15):
//
//	files.write.put     {namespace, key, data: base64, content_type?} →
//	                    the stored object's descriptor, last_modified
//	                    included (the seed: put returns the object's
//	                    metadata; fleetfiles v0.2.0 left last_modified out)
//	files.write.delete  {namespace, key} → {deleted: true} (idempotent)
//	files.write.copy    {namespace, key, to, to_namespace?} → the
//	                    destination's descriptor
//
// Put decodes strict standard base64 (CR and LF are stripped; binary
// data is accepted too); data whose encoded length exceeds
// 4·ceil(inline/3)+4, or whose decoded size exceeds the inline limit, is
// TOO_LARGE. Then the namespace's maxObjectBytes (OBJECT_TOO_LARGE), its
// content types (CONTENT_TYPE_NOT_ALLOWED; the default content type is
// application/octet-stream) and the quota, counting the object replaced
// (QUOTA_EXCEEDED). The etag is the MD5 of the content in hex. Copy
// applies the destination namespace's rules to the source object and
// refuses to copy an object onto itself (INVALID_KEY). There is no move:
// the SDK copies then deletes.

package fleetfiles

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

func (c *call) servePut() (map[string]any, *failure) {
	ns, key, f := c.target(accessWrite)
	if f != nil {
		return nil, f
	}
	ct, f := c.contentType()
	if f != nil {
		return nil, f
	}
	inline := c.b.svc.settings().InlineMaxBytes
	data, f := decodeData(c.req[wire.FieldData], inline)
	if f != nil {
		return nil, f
	}
	if f := checkFits(ns, int64(len(data)), ct); f != nil {
		return nil, f
	}
	if f := c.b.checkQuota(ns.Name, key, int64(len(data))); f != nil {
		return nil, f // before the content is written
	}
	w, f := c.b.storeBytes(data)
	if f != nil {
		return nil, f
	}
	o, f := c.b.commit(ns.Name, key, w, ct, c.now)
	if f != nil {
		return nil, f
	}
	return descriptor(o), nil
}

// decodeData reads the data of a put: strict base64 text or binary, at
// most inline bytes.
func decodeData(v any, inline int64) ([]byte, *failure) {
	var data []byte
	switch x := v.(type) {
	case nil:
	case []byte:
		data = x
	case string:
		if limit := 4*((inline+2)/3) + 4; int64(len(x)) > limit {
			return nil, refuse(wire.FileTooLarge, "data of about %d bytes is over the inline limit of %d bytes; upload it through a presigned URL (files.write.url)", int64(len(x))/4*3, inline)
		}
		x = strings.NewReplacer("\r", "", "\n", "").Replace(x)
		var err error
		if data, err = base64.StdEncoding.Strict().DecodeString(x); err != nil {
			return nil, refuse(wire.FileInternal, "data is not standard base64: %v", err)
		}
	default:
		return nil, refuse(wire.FileInternal, "data must be base64 text, got %T", v)
	}
	if int64(len(data)) > inline {
		return nil, refuse(wire.FileTooLarge, "data of %d bytes is over the inline limit of %d bytes; upload it through a presigned URL (files.write.url)", len(data), inline)
	}
	return data, nil
}

func (c *call) serveDelete() (map[string]any, *failure) {
	ns, key, f := c.target(accessDelete)
	if f != nil {
		return nil, f
	}
	if _, f := c.b.remove(ns.Name, key); f != nil {
		return nil, f
	}
	return map[string]any{wire.FieldDeleted: true}, nil
}

func (c *call) serveCopy() (map[string]any, *failure) {
	src, key, f := c.target(accessRead)
	if f != nil {
		return nil, f
	}
	to, f := c.key(wire.FieldTo)
	if f != nil {
		return nil, f
	}
	dstName := src.Name
	if c.req.has(wire.FieldToNamespace) {
		if dstName, f = c.req.namespace(wire.FieldToNamespace); f != nil {
			return nil, f
		}
	}
	dst, f := c.b.namespace(dstName)
	if f != nil {
		return nil, f
	}
	if f := c.allow(accessWrite, dst); f != nil {
		return nil, f
	}
	if dst.Name == src.Name && to == key {
		return nil, refuse(wire.FileInvalidKey, "cannot copy %q onto itself", key)
	}
	o, f := c.b.find(src.Name, key)
	if f != nil {
		return nil, f
	}
	if f := checkFits(dst, o.Size, o.ContentType); f != nil {
		return nil, f
	}
	if f := c.b.checkQuota(dst.Name, to, o.Size); f != nil {
		return nil, f // before the content is copied
	}
	meta := store.Meta{Namespace: dst.Name, Key: to, ContentType: o.ContentType, Modified: c.now}
	n, err := c.b.store.Copy(context.Background(), src.Name, key, meta, c.b.svc.quota(c.b.ri.Name))
	if errors.Is(err, store.ErrNotFound) {
		return nil, noSuchObject(src.Name, key) // deleted meanwhile
	}
	if err != nil {
		return nil, writeFailure("copying the object", err)
	}
	c.b.stored(n)
	return descriptor(n), nil
}
