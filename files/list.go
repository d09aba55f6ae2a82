// This file holds listings: List (one page of files.read.list) and Iter
// (every object under a prefix, paging automatically).

package files

import (
	"context"
	"iter"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
)

// Page is one page of a listing.
type Page struct {
	// Objects are the objects of the page, by key.
	Objects []Object
	// Prefixes are the common prefixes ("folders", ending in the
	// delimiter) of the keys the page covers.
	Prefixes []string
	// IsTruncated says whether more entries follow; pass Cursor to the
	// next List then.
	IsTruncated bool
	Cursor      string
}

// List returns one page of the objects of a namespace, folder-style: keys
// with a "/" after the prefix are grouped into Prefixes, unless
// Delimiter says otherwise. A listed object's ContentType is what the
// server infers from its key's extension; Stat returns the stored one.
// Honours Namespace, Prefix, Delimiter, Limit and Cursor.
func (s *Store) List(ctx context.Context, opts ...Option) (*Page, error) {
	set := settingsOf(opts)
	page, err := s.list(ctx, set, set.prefix, set.cursor, set.delimiter)
	if err != nil {
		return nil, opError("files.List", wire.FilesList, set.object(set.prefix), err)
	}
	return page, nil
}

func (s *Store) list(ctx context.Context, set *callSettings, prefix, cursor string, delim *string) (*Page, error) {
	if err := checkKey("prefix", prefix); err != nil {
		return nil, err
	}
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	req := map[string]any{wire.FieldNamespace: set.namespace, wire.FieldPrefix: prefix, wire.FieldCursor: cursor}
	if set.limit > 0 {
		req[wire.FieldLimit] = int64(set.limit)
	}
	if delim != nil {
		req[wire.FieldDelimiter] = *delim
	}
	p, err := s.call(ctx, wire.FilesList, req)
	if err != nil {
		return nil, err
	}
	page := &Page{IsTruncated: boolField(p, wire.FieldIsTruncated), Cursor: stringField(p, wire.FieldCursor)}
	objs, _ := p[wire.FieldObjects].([]any)
	for _, v := range objs {
		if d, ok := v.(map[string]any); ok {
			page.Objects = append(page.Objects, decodeObject(d, cat))
		}
	}
	prefixes, _ := p[wire.FieldPrefixes].([]any)
	for _, v := range prefixes {
		if s, ok := v.(string); ok {
			page.Prefixes = append(page.Prefixes, s)
		}
	}
	return page, nil
}

// Iter returns every object of a namespace whose key starts with the
// prefix, by key, paging through flat listings (Limit sets the page
// size). A folder prefix ("photos/") is sent without its "/" and the keys
// outside the folder are dropped here. The sequence ends after the first
// error, which it yields; breaking out of the loop stops the paging.
// Honours Namespace, Prefix and Limit; Cursor and Delimiter are ignored.
func (s *Store) Iter(ctx context.Context, opts ...Option) iter.Seq2[Object, error] {
	set := settingsOf(opts)
	return func(yield func(Object, error) bool) {
		want := set.prefix
		sent := strings.TrimSuffix(want, "/")
		flat := ""
		cursor := ""
		for {
			page, err := s.list(ctx, set, sent, cursor, &flat)
			if err != nil {
				yield(Object{}, opError("files.Iter", wire.FilesList, set.object(want), err))
				return
			}
			for _, o := range page.Objects {
				if !strings.HasPrefix(o.Key, sent) {
					yield(Object{}, opError("files.Iter", wire.FilesList, set.object(want),
						newError(CodeInternal, "the server listed %q for the prefix %q: it normalised the prefix; pass it in Unicode NFC", o.Key, sent)))
					return
				}
				if !strings.HasPrefix(o.Key, want) {
					continue
				}
				if !yield(o, nil) {
					return
				}
			}
			if !page.IsTruncated || page.Cursor == "" {
				return
			}
			cursor = page.Cursor
		}
	}
}
