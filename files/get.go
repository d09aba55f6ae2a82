// This file holds reads: Get, GetTo and GetToFile. files.read.get answers
// an object up to the inline limit at once (base64); a larger one is
// TOO_LARGE, and the SDK then mints a read URL (files.read.url) and
// streams an HTTP GET of it. Where direct transfers are unavailable (the
// catalog says so, files.read.url answers NOT_SUPPORTED, or the object
// store is unreachable before any byte arrived) it reads the object in
// ranges of the inline limit through files.read.get, pinning size and
// etag from the first range: a change in between fails with INTERNAL
// "object changed while it was read".

package files

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"

	"github.com/flockgo/ironflock/internal/wire"
)

// Get returns the content of the object key. A large object is read
// whole into memory: use GetTo or GetToFile to stream it. Honours
// Namespace and Progress.
func (s *Store) Get(ctx context.Context, key string, opts ...Option) ([]byte, error) {
	set := settingsOf(opts)
	var buf bytes.Buffer
	_, proc, err := s.get(ctx, key, &buf, set)
	if err != nil {
		return nil, opError("files.Get", proc, set.object(key), err)
	}
	return buf.Bytes(), nil
}

// GetTo writes the content of the object key to w, streaming a large one,
// and returns its metadata. When it fails, w may have received part of
// the content. Canceling ctx stops the transfer. Honours Namespace and
// Progress.
func (s *Store) GetTo(ctx context.Context, key string, w io.Writer, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	o, proc, err := s.get(ctx, key, w, set)
	return o, opError("files.GetTo", proc, set.object(key), err)
}

// GetToFile writes the content of the object key to the file at path and
// returns its metadata. The content goes to a temporary file beside path,
// which is synced and renamed into place once complete, so a failed or
// canceled download never leaves a partial file and keeps the old one.
// The file keeps the mode of the file it replaces, or gets 0644. Honours
// Namespace and Progress.
func (s *Store) GetToFile(ctx context.Context, key, path string, opts ...Option) (*Object, error) {
	set := settingsOf(opts)
	o, proc, err := s.getToFile(ctx, key, path, set)
	return o, opError("files.GetToFile", proc, set.object(key), err)
}

func (s *Store) getToFile(ctx context.Context, key, path string, set *callSettings) (*Object, string, error) {
	if err := checkKey("key", key); err != nil {
		return nil, wire.FilesGet, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.part")
	if err != nil {
		return nil, "", err
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	o, proc, err := s.get(ctx, key, tmp, set)
	if err != nil {
		return nil, proc, err
	}
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := errors.Join(tmp.Chmod(mode), tmp.Sync(), tmp.Close()); err != nil {
		return nil, "", err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return nil, "", err
	}
	done = true
	return o, "", nil
}

// get writes the object to w and returns its metadata and, on failure,
// the procedure concerned.
func (s *Store) getObject(ctx context.Context, key string, w io.Writer, set *callSettings) (*Object, string, error) {
	if err := checkKey("key", key); err != nil {
		return nil, wire.FilesGet, err
	}
	cat, err := s.catalog(ctx)
	if err != nil {
		return nil, wire.FilesNamespaces, err
	}
	loc := map[string]any{wire.FieldNamespace: set.namespace, wire.FieldKey: key}
	p := &progress{fn: set.progress}
	d, err := s.call(ctx, wire.FilesGet, loc)
	if err == nil {
		data, err := inlineData(d)
		if err != nil {
			return nil, wire.FilesGet, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, wire.FilesGet, err
		}
		p.total = int64(len(data))
		p.add(len(data))
		o := decodeObject(d, cat)
		return &o, "", nil
	}
	if CodeOf(err) != CodeTooLarge {
		return nil, wire.FilesGet, err
	}
	if cat.PresignAvailable {
		o, proc, err := s.getDirect(ctx, key, w, set, p, cat)
		var ns *errNotStarted
		code := CodeOf(err)
		if err == nil || !(code == CodeNotSupported || errors.As(err, &ns) && code == CodePresignUnreachable) {
			return o, proc, unwrapNotStarted(err)
		}
	}
	o, err := s.getRanges(ctx, key, w, set, p, cat)
	return o, wire.FilesGet, err
}

func unwrapNotStarted(err error) error {
	var ns *errNotStarted
	if errors.As(err, &ns) {
		return ns.err
	}
	return err
}

// getDirect mints a read URL and downloads it.
func (s *Store) getDirect(ctx context.Context, key string, w io.Writer, set *callSettings, p *progress, cat *Catalog) (*Object, string, error) {
	u, err := s.readURL(ctx, key, set, DefaultShareTTL)
	if err != nil {
		return nil, wire.FilesReadURL, err
	}
	p.total = intField(u, wire.FieldSize)
	o, err := s.getHTTP(ctx, stringField(u, wire.FieldURL), w, p)
	if err != nil {
		return nil, wire.FilesReadURL, err
	}
	o.Namespace, o.Key = set.namespace, key
	o.URL = objectURL(cat.PublicBaseURL, cat.SadKey, o.Namespace, o.Key, "")
	return &o, "", nil
}

// getRanges reads the object in ranges of the inline limit through the
// router.
func (s *Store) getRanges(ctx context.Context, key string, w io.Writer, set *callSettings, p *progress, cat *Catalog) (*Object, error) {
	chunk := max(cat.InlineMaxBytes, 1)
	var first *Object
	var offset int64
	for {
		d, err := s.call(ctx, wire.FilesGet, map[string]any{
			wire.FieldNamespace: set.namespace, wire.FieldKey: key,
			wire.FieldOffset: offset, wire.FieldLength: chunk,
		})
		if err != nil {
			return nil, err
		}
		o := decodeObject(d, cat)
		if first == nil {
			first = &o
			p.total = o.Size
		} else if o.ETag != first.ETag || o.Size != first.Size {
			return nil, newError(CodeInternal, "object changed while it was read (etag %s, %d bytes, became etag %s, %d bytes)", first.ETag, first.Size, o.ETag, o.Size)
		}
		data, err := inlineData(d)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			return nil, err
		}
		offset += int64(len(data))
		p.add(len(data))
		if offset >= first.Size {
			return first, nil
		}
		if len(data) == 0 {
			return nil, newError(CodeInternal, "a ranged read at offset %d of %d bytes returned nothing", offset, first.Size)
		}
	}
}

// inlineData decodes the data of a files.read.get answer: standard base64,
// padded or not, or binary; missing data is empty.
func inlineData(d map[string]any) ([]byte, error) {
	if enc, ok := d[wire.FieldEncoding].(string); ok && enc != wire.EncodingBase64 {
		return nil, newError(CodeInternal, "unknown encoding %q of the object's data", enc)
	}
	switch v := d[wire.FieldData].(type) {
	case nil:
		return nil, nil
	case []byte:
		return v, nil
	case string:
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil {
			b, err = base64.RawStdEncoding.DecodeString(v)
		}
		if err != nil {
			return nil, newError(CodeInternal, "the object's data is not base64: %v", err)
		}
		return b, nil
	default:
		return nil, newError(CodeInternal, "the object's data is %T, not base64 text", v)
	}
}
