// This file serves listings (docs/wire.md §7.15):
//
//	files.read.list  {namespace, prefix, limit, cursor, delimiter?} →
//	                 {objects: [descriptor…], prefixes: [..],
//	                 is_truncated, cursor}
//
// Folder-style with "/" unless a string delimiter is sent ("" lists
// flat); objects and common prefixes share a page, in key order; limit
// 200 by default, at most 1000 (≤ 0 means 200); the cursor is the
// URL-safe base64 of the page's last entry (an unreadable one is
// INTERNAL). As in fleetfiles, which lists from the object store, a
// listed object's content_type is inferred from its key's extension
// (mime.go); files.read.stat gives the stored one. The scan mode
// (namespace "*", search, offset) is not modelled: NOT_SUPPORTED.

package fleetfiles

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// listEntry is an object or a common prefix of a listing.
type listEntry struct {
	name string
	obj  *store.Object // nil for a prefix
}

func (c *call) serveList() (map[string]any, *failure) {
	if name, _ := c.req.str(wire.FieldNamespace, ""); name == "*" || c.req.has("search") || c.req.has(wire.FieldOffset) {
		return nil, refuse(wire.FileNotSupported, "the scan listing (namespace *, search, offset) is not modelled by the fake platform")
	}
	ns, f := c.namespace(wire.FieldNamespace, accessRead)
	if f != nil {
		return nil, f
	}
	prefix, f := c.req.str(wire.FieldPrefix, "")
	if f != nil {
		return nil, f
	}
	if msg := checkPrefix(prefix); msg != "" {
		return nil, refuse(wire.FileInvalidKey, "%s", msg)
	}
	delim := "/"
	if c.req.has(wire.FieldDelimiter) {
		if delim, f = c.req.str(wire.FieldDelimiter, ""); f != nil {
			return nil, f
		}
	}
	limit, f := c.req.int(wire.FieldLimit, wire.DefaultListLimit)
	if f != nil {
		return nil, f
	}
	if limit <= 0 {
		limit = wire.DefaultListLimit
	}
	limit = min(limit, wire.MaxListLimit)
	cursorText, f := c.req.str(wire.FieldCursor, "")
	if f != nil {
		return nil, f
	}
	after, err := decodeCursor(cursorText)
	if err != nil {
		return nil, refuse(wire.FileInternal, "invalid cursor %q: %v", cursorText, err)
	}

	scan := func(from string, fn func(store.Object) (string, bool)) error {
		return c.b.store.List(context.Background(), ns.Name, prefix, from, fn)
	}
	entries, err := listEntries(scan, prefix, delim, after, int(limit)+1)
	if err != nil {
		return nil, storageFailure("listing", err)
	}
	truncated := int64(len(entries)) > limit
	if truncated {
		entries = entries[:limit]
	}
	objects, prefixes := []any{}, []any{}
	for _, e := range entries {
		if e.obj == nil {
			prefixes = append(prefixes, e.name)
			continue
		}
		d := descriptor(*e.obj)
		d[wire.FieldContentType] = typeByExtension(e.obj.Key)
		objects = append(objects, d)
	}
	next := ""
	if truncated {
		next = encodeCursor(entries[len(entries)-1].name)
	}
	return map[string]any{
		wire.FieldObjects: objects, wire.FieldPrefixes: prefixes,
		wire.FieldIsTruncated: truncated, wire.FieldCursor: next,
	}, nil
}

// listEntries folds the objects under prefix, which scan visits by key
// from a key on, into at most n entries of a listing: keys with delim
// after prefix become their common prefix, once (the keys under a common
// prefix are skipped, not visited). Entries up to and including after are
// left out.
func listEntries(scan func(from string, fn func(store.Object) (string, bool)) error, prefix, delim, after string, n int) ([]listEntry, error) {
	var out []listEntry
	err := scan(max(prefix, after), func(o store.Object) (string, bool) {
		e := listEntry{name: o.Key, obj: &o}
		skip := ""
		if delim != "" {
			if i := strings.Index(o.Key[len(prefix):], delim); i >= 0 {
				e = listEntry{name: o.Key[:len(prefix)+i+len(delim)]}
				skip = prefixEnd(e.name)
			}
		}
		if (after != "" && e.name <= after) || (len(out) > 0 && out[len(out)-1].obj == nil && out[len(out)-1].name == e.name) {
			return skip, true
		}
		out = append(out, e)
		return skip, len(out) < n
	})
	return out, err
}

// prefixEnd returns the smallest string above every string starting with
// p; "" when there is none.
func prefixEnd(p string) string {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1])
		}
	}
	return ""
}

// encodeCursor returns the cursor after an entry.
func encodeCursor(name string) string { return base64.RawURLEncoding.EncodeToString([]byte(name)) }

// decodeCursor reads a cursor, padded or not; "" starts at the beginning.
func decodeCursor(s string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "="))
	return string(b), err
}
