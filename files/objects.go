// This file holds the operations on single objects that move no content
// through the SDK: Stat and Exists (files.read.stat), Delete
// (files.write.delete), Copy (files.write.copy) and Move (copy, then
// delete).

package files

import (
	"context"

	"github.com/flockgo/ironflock/internal/wire"
)

// Stat returns the metadata of the object key. Honours Namespace.
func (s *Store) Stat(ctx context.Context, key string, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	o, err := s.stat(ctx, key, set)
	return o, opError("files.Stat", wire.FilesStat, set.object(key), err)
}

func (s *Store) stat(ctx context.Context, key string, set *callSettings) (*Object, error) {
	if err := checkKey("key", key); err != nil {
		return nil, err
	}
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	d, err := s.call(ctx, wire.FilesStat, map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key})
	if err != nil {
		return nil, err
	}
	o := decodeObject(d, cat)
	return &o, nil
}

// Exists reports whether the object key exists. Only NO_SUCH_OBJECT means
// false; every other failure (NOT_AUTHORIZED, NO_SUCH_NAMESPACE,
// NOT_AVAILABLE…) is an error. Honours Namespace.
func (s *Store) Exists(ctx context.Context, key string, opts ...Option) (bool, error) {
	set := settingsOf(opts)
	_, err := s.stat(ctx, key, set)
	switch {
	case err == nil:
		return true, nil
	case CodeOf(err) == CodeNoSuchObject:
		return false, nil
	default:
		return false, opError("files.Exists", wire.FilesStat, set.object(key), err)
	}
}

// Delete deletes the object key. Deleting an object that does not exist
// succeeds. Honours Namespace.
func (s *Store) Delete(ctx context.Context, key string, opts ...Option) error {
	set := settingsOf(opts)
	err := checkKey("key", key)
	if err == nil {
		_, err = s.call(ctx, wire.FilesDelete, map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key})
	}
	return opError("files.Delete", wire.FilesDelete, set.object(key), err)
}

// Copy copies the object key to the key to, in the same namespace or in
// the one ToNamespace names, on the server (no content passes through
// the device), and returns the copy's metadata. The destination
// namespace's rules apply. Honours Namespace and ToNamespace.
func (s *Store) Copy(ctx context.Context, key, to string, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	o, err := s.copy(ctx, key, to, set)
	return o, opError("files.Copy", wire.FilesCopy, set.object(key), err)
}

func (s *Store) copy(ctx context.Context, key, to string, set *callSettings) (*Object, error) {
	if err := checkKey("key", key); err != nil {
		return nil, err
	}
	if err := checkKey("destination", to); err != nil {
		return nil, err
	}
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, err
	}
	req := map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key, wire.FieldTo: to}
	if set.toNamespace != "" {
		req[wire.FieldToNamespace] = set.toNamespace
	}
	d, err := s.call(ctx, wire.FilesCopy, req)
	if err != nil {
		return nil, err
	}
	o := decodeObject(d, cat)
	return &o, nil
}

// Move copies the object key to to (as Copy does) and then deletes the
// original. It is not atomic: when the delete fails, both copies exist,
// and Move returns the copy's metadata together with the error. Honours
// Namespace and ToNamespace.
func (s *Store) Move(ctx context.Context, key, to string, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	o, err := s.copy(ctx, key, to, set)
	if err != nil {
		return nil, opError("files.Move", wire.FilesCopy, set.object(key), err)
	}
	_, err = s.call(ctx, wire.FilesDelete, map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key})
	if err != nil {
		return o, opError("files.Move", wire.FilesDelete, set.object(key), err)
	}
	return o, nil
}
