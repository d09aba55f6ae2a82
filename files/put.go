// This file holds writes: Put, PutReader and PutFile. An object up to the
// catalog's inline limit goes through the router in one call
// (files.write.put, base64); a larger one directly to the object store:
// files.write.url mints an upload URL, an HTTP PUT streams the bytes with
// Content-Length, and files.read.stat returns the descriptor. Without
// direct transfers an object over the inline limit fails with TOO_LARGE
// before anything is sent, as does one over 5 GiB (no multipart upload).

package files

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os"

	"github.com/flockgo/ironflock/internal/wire"
)

// Put stores data as the object key and returns its metadata, with URL.
// Honours Namespace, ContentType and Progress.
func (s *Store) Put(ctx context.Context, key string, data []byte, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	o, proc, err := s.put(ctx, key, bytes.NewReader(data), int64(len(data)), set)
	return o, opError("files.Put", proc, set.object(key), err)
}

// PutReader stores size bytes read from r as the object key and returns
// its metadata. A large object streams from r to the object store and
// never has to fit in memory; r must yield at least size bytes (further
// bytes are not read). Canceling ctx stops the transfer; nothing is
// stored then. Honours Namespace, ContentType and Progress.
func (s *Store) PutReader(ctx context.Context, key string, r io.Reader, size int64, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	if size < 0 {
		return nil, opError("files.PutReader", wire.FilesPut, set.object(key), invalidArg("negative size %d", size))
	}
	o, proc, err := s.put(ctx, key, r, size, set)
	return o, opError("files.PutReader", proc, set.object(key), err)
}

// PutFile stores the file at path as the object key, streaming it, and
// returns its metadata. Without ContentType the object is
// application/octet-stream. Honours Namespace, ContentType and Progress.
func (s *Store) PutFile(ctx context.Context, key, path string, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	f, err := os.Open(path)
	if err != nil {
		return nil, opError("files.PutFile", wire.FilesPut, set.object(key), err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = invalidArg("%s is not a regular file", path)
	}
	if err != nil {
		return nil, opError("files.PutFile", wire.FilesPut, set.object(key), err)
	}
	o, proc, err := s.put(ctx, key, f, fi.Size(), set)
	return o, opError("files.PutFile", proc, set.object(key), err)
}

// put stores size bytes of r, inline or directly, and returns the
// procedure that failed, if any.
func (s *Store) putObject(ctx context.Context, key string, r io.Reader, size int64, set *callSettings) (*Object, string, error) {
	if err := checkKey("key", key); err != nil {
		return nil, wire.FilesPut, err
	}
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, wire.FilesNamespaces, err
	}
	p := &progress{fn: set.progress, total: size}
	if size <= cat.InlineMaxBytes {
		data := make([]byte, size)
		if _, err := io.ReadFull(r, data); err != nil {
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
				err = invalidArg("the reader ended before the announced size of %d bytes", size)
			}
			return nil, wire.FilesPut, err
		}
		o, err := s.putInline(ctx, key, data, set, cat)
		if CodeOf(err) != CodeTooLarge {
			if err == nil {
				p.add(len(data))
			}
			return o, wire.FilesPut, err
		}
		// The inline limit may have shrunk since the catalog was read.
		if cat, err = s.fetchCatalog(ctx); err != nil {
			return nil, wire.FilesNamespaces, err
		}
		if size <= cat.InlineMaxBytes {
			return nil, wire.FilesPut, newError(CodeTooLarge, "the file service refused %d bytes inline although its limit is %d", size, cat.InlineMaxBytes)
		}
		r = bytes.NewReader(data)
	}
	switch {
	case size > cat.PresignMaxBytes:
		return nil, wire.FilesWriteURL, newError(CodeTooLarge, "object of %d bytes is over the single-upload limit of %d bytes (multipart upload is not implemented)", size, cat.PresignMaxBytes)
	case !cat.PresignAvailable:
		return nil, wire.FilesWriteURL, newError(CodeTooLarge, "object of %d bytes is over the inline limit of %d bytes and this deployment has no direct transfers", size, cat.InlineMaxBytes)
	}
	set2 := *set
	set2.size, set2.sizeSet = size, true
	u, err := s.writeURL(ctx, key, &set2, DefaultUploadTTL)
	if err != nil {
		return nil, wire.FilesWriteURL, err
	}
	up := decodeUpload(u)
	if err := s.putHTTP(ctx, up.Method, up.URL, up.Headers, r, size, p); err != nil {
		return nil, wire.FilesWriteURL, err
	}
	d, err := s.call(ctx, wire.FilesStat, map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key})
	if err != nil {
		return nil, wire.FilesStat, err
	}
	o := decodeObject(d, cat)
	return &o, "", nil
}

// putInline stores data in one files.write.put.
func (s *Store) putInline(ctx context.Context, key string, data []byte, set *callSettings, cat *Catalog) (*Object, error) {
	req := map[string]any{
		wire.FieldNamespace: set.namespace,
		wire.FieldKey:       key,
		wire.FieldData:      base64.StdEncoding.EncodeToString(data),
	}
	if set.contentType != "" {
		req[wire.FieldContentType] = set.contentType
	}
	d, err := s.call(ctx, wire.FilesPut, req)
	if err != nil {
		return nil, err
	}
	o := decodeObject(d, cat)
	return &o, nil
}
