// This file serves reads through the router (docs/wire.md §7.15):
//
//	files.read.stat  {namespace, key} → descriptor
//	files.read.get   {namespace, key} → descriptor + data (standard
//	                 base64) + encoding "base64"
//	files.read.get   {namespace, key, offset, length?} → the same for one
//	                 range, with offset and length
//
// A plain get of an object over the inline limit is TOO_LARGE; a ranged
// one takes offset ≥ 0 and length > 0 (clamped to the inline limit, and
// to the object's end; omitted means up to the limit) and refuses an
// offset past the end with INVALID_RANGE.

package fleetfiles

import (
	"encoding/base64"
	"io"

	"github.com/flockgo/ironflock/internal/wire"
)

func (c *call) serveStat() (map[string]any, *failure) {
	ns, key, f := c.target(accessRead)
	if f != nil {
		return nil, f
	}
	return c.b.stat(ns.Name, key)
}

func (c *call) serveGet() (map[string]any, *failure) {
	ns, key, f := c.target(accessRead)
	if f != nil {
		return nil, f
	}
	ranged := c.req.has(wire.FieldOffset) || c.req.has(wire.FieldLength)
	offset, f := c.req.int(wire.FieldOffset, 0)
	if f != nil {
		return nil, f
	}
	inline := c.b.svc.settings().InlineMaxBytes
	length, f := c.req.int(wire.FieldLength, inline)
	if f != nil {
		return nil, f
	}
	o, content, f := c.b.open(ns.Name, key)
	if f != nil {
		return nil, f
	}
	defer content.Close()
	size := o.Size
	switch {
	case !ranged && size > inline:
		return nil, refuse(wire.FileTooLarge, "object of %d bytes is over the inline limit of %d bytes; read it in ranges with offset and length, or through a presigned URL", size, inline)
	case !ranged:
		offset, length = 0, size
	case offset < 0 || length <= 0:
		return nil, refuse(wire.FileInvalidRange, "offset must be ≥ 0 and length > 0 (got offset %d, length %d)", offset, length)
	case offset > size:
		return nil, refuse(wire.FileInvalidRange, "offset %d is past the end of the object (%d bytes)", offset, size)
	default:
		length = min(length, inline, size-offset)
	}
	data := make([]byte, length)
	if _, err := content.ReadAt(data, offset); err != nil && err != io.EOF {
		return nil, refuse(wire.FileInternal, "reading the object: %v", err)
	}
	c.b.svc.met.read.Add(uint64(len(data)))
	d := descriptor(o)
	d[wire.FieldData] = base64.StdEncoding.EncodeToString(data)
	d[wire.FieldEncoding] = wire.EncodingBase64
	if ranged {
		d[wire.FieldOffset] = offset
		d[wire.FieldLength] = length
	}
	return d, nil
}
