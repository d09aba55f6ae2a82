// This file holds the store.Objects of a data folder: a bucket's records
// in files.db and their content in the blob folder files/ (datadir.Blobs),
// so that objects survive restarts and a kill, and neither records nor
// content sit in memory.
//
// Layout of files.db (every value with the folder's checksum):
//
//	realms/<realm>/s          the data backend's sad_key (8 bytes)
//	realms/<realm>/o/         ns \0 key → the object's record (JSON)
//	realms/<realm>/a/         ns \0 last modified (8 bytes) key → "" (retention)
//	realms/<realm>/n/         ns → bytes stored, objects (8 + 8 bytes)
//	blobs/                    blob name → size (8 bytes), realm \0 ns \0 key
//	sads/                     sad_key (8 bytes) → realm
//	counters/sad              the last sad_key handed out
//	keys/presign              the key that signs presigned URLs
//
// A write (put, upload, copy) writes its content to a temporary file of
// the blob folder, syncs it, renames it to a fresh blob name and syncs
// the folder (datadir.BlobWriter.Commit), and only then commits the
// record: no record ever names half a blob. Replacing and deleting commit
// first and remove the old blob after. A kill between the two leaves a
// blob no record names, which CheckBlobs removes at the next start
// (objects_check.go); a record whose blob is missing or of another size is a
// damaged folder.

package folder

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// Buckets and keys of files.db (and bucketRealms, as in fleet.db:
// folder.go).
var (
	bucketBlobs    = []byte("blobs")
	bucketSads     = []byte("sads")
	bucketCounters = []byte("counters")
	keySad         = []byte("s")
	keyObjects     = []byte("o")
	keyAges        = []byte("a")
	keyUsage       = []byte("n")
)

// Objects is the store.Objects of a data folder. It does not own the
// folder: the caller closes it after Close.
type Objects struct {
	db      *datadir.DB
	blobs   *datadir.Blobs
	log     *slog.Logger
	checked checkedBlobs // the blobs found whole (objects_verify.go)
}

// Bucket returns the bucket of realm, handing out its sad_key (and
// keeping it) the first time.
func (s *Objects) Bucket(_ context.Context, realm string) (store.Bucket, error) {
	num, err := sadOf(s.db, realm)
	if err != nil {
		return nil, fmt.Errorf("files of %s: %w", realm, storeErr(err))
	}
	return &bucket{s: s, realm: realm, num: num}, nil
}

// RealmOf returns the realm of sad_key n.
func (s *Objects) RealmOf(_ context.Context, n int64) (string, error) {
	realm, err := realmOfSad(s.db, n)
	switch {
	case err != nil:
		return "", err
	case realm == "":
		return "", fmt.Errorf("bucket %d: %w", n, store.ErrNotFound)
	}
	return realm, nil
}

// Drop removes the realm's records, then their blobs.
func (s *Objects) Drop(ctx context.Context, realm string) error {
	return storeErr((&bucket{s: s, realm: realm}).clear(ctx))
}

// Count returns how many objects files.db records over every realm.
func (s *Objects) Count(context.Context) (int64, error) { return countObjects(s.db) }

// Close does nothing: the objects stay in the folder, which its owner
// closes.
func (s *Objects) Close() error { return nil }

// bucket is the store.Bucket of one realm in the data folder.
type bucket struct {
	s     *Objects
	realm string
	num   int64
}

func (b *bucket) Number() int64 { return b.num }

// record is an object's record in files.db.
type record struct {
	Blob        string `json:"blob"`
	Size        int64  `json:"size"`
	MD5         string `json:"md5"`
	SHA256      string `json:"sha256"`
	ContentType string `json:"type"`
	Modified    int64  `json:"modified"` // Unix nanoseconds
}

func (r *record) object(ns, key string) store.Object {
	return store.Object{Namespace: ns, Key: key, Size: r.Size, MD5: r.MD5, SHA256: r.SHA256,
		ContentType: r.ContentType, Modified: time.Unix(0, r.Modified).UTC()}
}

// objectKey is the key of ns/key in the o bucket.
func objectKey(ns, key string) []byte { return []byte(ns + "\x00" + key) }

// ageKey is the key of ns/key last modified at t in the a bucket.
func ageKey(ns, key string, t int64) []byte {
	b := append([]byte(ns), 0)
	b = binary.BigEndian.AppendUint64(b, uint64(t)^1<<63)
	return append(b, key...)
}

// blobOwner is the value of a blob in the blobs bucket.
func blobOwner(size int64, realm, ns, key string) []byte {
	return append(binary.BigEndian.AppendUint64(nil, uint64(size)), realm+"\x00"+ns+"\x00"+key...)
}

// realmBuckets returns the buckets of the realm in tx, creating them in a
// writable one; nil in a read-only tx without them.
func (b *bucket) realmBuckets(tx *bolt.Tx) (o, a, n *bolt.Bucket, err error) {
	rb := tx.Bucket(bucketRealms)
	if rb != nil {
		rb = rb.Bucket([]byte(b.realm))
	}
	if rb == nil && tx.Writable() {
		if rb, err = createPath(tx, bucketRealms, []byte(b.realm)); err != nil {
			return nil, nil, nil, err
		}
		for _, k := range [][]byte{keyObjects, keyAges, keyUsage} {
			if _, err := datadir.CreateBucket(rb, k); err != nil {
				return nil, nil, nil, err
			}
		}
	}
	if rb == nil {
		return nil, nil, nil, nil
	}
	return rb.Bucket(keyObjects), rb.Bucket(keyAges), rb.Bucket(keyUsage), nil
}

// createPath creates nested buckets and returns the last.
func createPath(tx *bolt.Tx, names ...[]byte) (*bolt.Bucket, error) {
	b, err := datadir.CreateBucket(tx, names[0])
	for _, n := range names[1:] {
		if err != nil {
			break
		}
		b, err = datadir.CreateBucket(b, n)
	}
	return b, err
}

// readRecord returns the record under k in ob, nil when there is none.
func readRecord(ob *bolt.Bucket, k []byte) (*record, error) {
	raw, err := datadir.Get(ob, k)
	if err != nil || raw == nil {
		return nil, err
	}
	r := &record{}
	if err := json.Unmarshal(raw, r); err != nil {
		return nil, fmt.Errorf("object record %q: %w", k, err)
	}
	return r, nil
}

// usageOf reads a namespace's bytes and objects from the n bucket.
func usageOf(nb *bolt.Bucket, ns string) (used, count int64, err error) {
	raw, err := datadir.Get(nb, []byte(ns))
	if err != nil || raw == nil {
		return 0, 0, err
	}
	if len(raw) != 16 {
		return 0, 0, fmt.Errorf("usage of namespace %q: %d bytes", ns, len(raw))
	}
	return int64(binary.BigEndian.Uint64(raw)), int64(binary.BigEndian.Uint64(raw[8:])), nil
}

// addUsage adds bytes and objects to a namespace's usage.
func addUsage(nb *bolt.Bucket, ns string, bytes, objects int64) error {
	used, count, err := usageOf(nb, ns)
	if err != nil {
		return err
	}
	v := binary.BigEndian.AppendUint64(nil, uint64(used+bytes))
	return datadir.Put(nb, []byte(ns), binary.BigEndian.AppendUint64(v, uint64(count+objects)))
}

// totalUsed returns the bytes stored over every namespace.
func totalUsed(nb *bolt.Bucket) (int64, error) {
	var total int64
	err := nb.ForEach(func(k, _ []byte) error {
		used, _, err := usageOf(nb, string(k))
		total += used
		return err
	})
	return total, err
}

func notFound(ns, key string) error {
	return fmt.Errorf("object %q in namespace %q: %w", key, ns, store.ErrNotFound)
}

// find returns the record of ns/key, nil when there is none.
func (b *bucket) find(ns, key string) (*record, error) {
	var r *record
	err := b.s.db.View(func(tx *bolt.Tx) error {
		ob, _, _, err := b.realmBuckets(tx)
		if err != nil || ob == nil {
			return err
		}
		r, err = readRecord(ob, objectKey(ns, key))
		return err
	})
	return r, err
}

func (b *bucket) Stat(_ context.Context, ns, key string) (store.Object, error) {
	r, err := b.find(ns, key)
	switch {
	case err != nil:
		return store.Object{}, err
	case r == nil:
		return store.Object{}, notFound(ns, key)
	}
	return r.object(ns, key), nil
}

func (b *bucket) Open(_ context.Context, ns, key string) (store.Object, store.Content, error) {
	for attempt := 0; ; attempt++ {
		r, err := b.find(ns, key)
		switch {
		case err != nil:
			return store.Object{}, nil, err
		case r == nil:
			return store.Object{}, nil, notFound(ns, key)
		}
		f, err := b.s.blobs.Open(r.Blob)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // replaced or deleted between the read and the open
		}
		if err != nil {
			return store.Object{}, nil, fmt.Errorf("the content of %s/%s (%s): %w", ns, key, b.s.blobs.Describe(r.Blob), err)
		}
		c := &blob{size: r.Size, sha256: r.SHA256, file: f, name: r.Blob,
			check: &contentCheck{checked: &b.s.checked, where: b.s.blobs.Describe(r.Blob),
				object: fmt.Sprintf("object %q in namespace %q of %s", key, ns, b.realm)}}
		return r.object(ns, key), c, nil
	}
}

func (b *bucket) Create(context.Context, int64) (store.Writer, error) {
	w, err := b.s.blobs.Create()
	if err != nil {
		return nil, storeErr(err)
	}
	return &diskWriter{w: w, md5: md5.New(), sha: sha256.New()}, nil
}

func (b *bucket) Put(ctx context.Context, meta store.Meta, w store.Writer, limit int64) (store.Object, error) {
	dw, ok := w.(*diskWriter)
	if !ok {
		w.Abort()
		return store.Object{}, fmt.Errorf("data folder objects: put of content of another store (%T)", w)
	}
	r, err := dw.finish()
	if err != nil {
		return store.Object{}, storeErr(err)
	}
	return b.record(ctx, meta, r, limit)
}

func (b *bucket) Copy(ctx context.Context, ns, key string, meta store.Meta, limit int64) (store.Object, error) {
	src, err := b.find(ns, key)
	switch {
	case err != nil:
		return store.Object{}, err
	case src == nil:
		return store.Object{}, notFound(ns, key)
	}
	name, err := b.s.blobs.Link(src.Blob)
	if err != nil {
		return store.Object{}, storeErr(err)
	}
	r := *src
	r.Blob = name
	return b.record(ctx, meta, &r, limit)
}

// record stores r (whose blob is written) as meta's object when the
// bucket's bytes fit limit afterwards; on failure it removes r's blob.
func (b *bucket) record(ctx context.Context, meta store.Meta, r *record, limit int64) (store.Object, error) {
	r.ContentType, r.Modified = meta.ContentType, meta.Modified.UnixNano()
	ns, key := meta.Namespace, meta.Key
	var old *record
	err := b.s.db.Update(ctx, func(tx *bolt.Tx) error {
		old = nil
		ob, ab, nb, err := b.realmBuckets(tx)
		if err != nil {
			return err
		}
		used, err := totalUsed(nb)
		if err != nil {
			return err
		}
		after := used + r.Size
		if old, err = b.unrecord(tx, ob, ab, nb, ns, key); err != nil {
			return err
		}
		if old != nil {
			after -= old.Size
		}
		if err := store.CheckLimit(used, after, r.Size, limit); err != nil {
			return err
		}
		return b.write(tx, ob, ab, nb, ns, key, r)
	})
	if err != nil {
		b.removeBlob(r.Blob)
		return store.Object{}, storeErr(err)
	}
	if old != nil {
		b.removeBlob(old.Blob)
	}
	return r.object(ns, key), nil
}

// write stores r as ns/key with its retention entry, its blob's owner and
// its usage (in tx).
func (b *bucket) write(tx *bolt.Tx, ob, ab, nb *bolt.Bucket, ns, key string, r *record) error {
	raw, err := json.Marshal(r)
	if err != nil {
		return err
	}
	bb, err := datadir.CreateBucket(tx, bucketBlobs)
	if err != nil {
		return err
	}
	return errors.Join(
		datadir.Put(ob, objectKey(ns, key), raw),
		datadir.Put(ab, ageKey(ns, key, r.Modified), nil),
		datadir.Put(bb, []byte(r.Blob), blobOwner(r.Size, b.realm, ns, key)),
		addUsage(nb, ns, r.Size, 1),
	)
}

// unrecord deletes the record of ns/key with its entries (in tx) and
// returns it, nil when there was none.
func (b *bucket) unrecord(tx *bolt.Tx, ob, ab, nb *bolt.Bucket, ns, key string) (*record, error) {
	r, err := readRecord(ob, objectKey(ns, key))
	if err != nil || r == nil {
		return nil, err
	}
	var bbErr error
	if bb := tx.Bucket(bucketBlobs); bb != nil {
		bbErr = bb.Delete([]byte(r.Blob))
	}
	err = errors.Join(bbErr,
		ob.Delete(objectKey(ns, key)),
		ab.Delete(ageKey(ns, key, r.Modified)),
		addUsage(nb, ns, -r.Size, -1),
	)
	return r, err
}

// removeBlob removes a blob no record names any longer; a failure leaves
// it to the check at the next start.
func (b *bucket) removeBlob(name string) {
	if name == "" {
		return
	}
	if err := b.s.blobs.Remove(name); err != nil {
		b.s.log.Warn("files: a replaced object's content not removed; the next start removes it", "blob", b.s.blobs.Describe(name), "err", err)
	}
}

func (b *bucket) Delete(ctx context.Context, ns, key string) (store.Object, error) {
	var old *record
	err := b.s.db.Update(ctx, func(tx *bolt.Tx) error {
		ob, ab, nb, err := b.realmBuckets(tx)
		if err != nil {
			return err
		}
		old, err = b.unrecord(tx, ob, ab, nb, ns, key)
		return err
	})
	switch {
	case err != nil:
		return store.Object{}, storeErr(err)
	case old == nil:
		return store.Object{}, notFound(ns, key)
	}
	b.removeBlob(old.Blob)
	return old.object(ns, key), nil
}

func (b *bucket) List(_ context.Context, ns, prefix, from string, fn func(store.Object) (string, bool)) error {
	return b.s.db.View(func(tx *bolt.Tx) error {
		ob, _, _, err := b.realmBuckets(tx)
		if err != nil || ob == nil {
			return err
		}
		c := ob.Cursor()
		start := ns + "\x00" + max(prefix, from)
		for k, raw := c.Seek([]byte(start)); k != nil; {
			nsk, key, _ := strings.Cut(string(k), "\x00")
			if nsk != ns || !strings.HasPrefix(key, prefix) {
				return nil
			}
			v, err := datadir.Value(k, raw)
			if err != nil {
				return err
			}
			r := &record{}
			if err := json.Unmarshal(v, r); err != nil {
				return fmt.Errorf("object record %q: %w", k, err)
			}
			skip, more := fn(r.object(ns, key))
			switch {
			case !more:
				return nil
			case skip != "":
				k, raw = c.Seek([]byte(ns + "\x00" + skip))
			default:
				k, raw = c.Next()
			}
		}
		return nil
	})
}

func (b *bucket) All(_ context.Context, fn func(store.Object) bool) error {
	return b.s.db.View(func(tx *bolt.Tx) error {
		ob, _, _, err := b.realmBuckets(tx)
		if err != nil || ob == nil {
			return err
		}
		c := ob.Cursor()
		for k, _ := c.First(); k != nil; k, _ = c.Next() {
			ns, key, _ := strings.Cut(string(k), "\x00")
			r, err := readRecord(ob, k)
			if err != nil {
				return err
			}
			if !fn(r.object(ns, key)) {
				return nil
			}
		}
		return nil
	})
}

func (b *bucket) Expire(ctx context.Context, ns string, upTo time.Time) error {
	limit := ageKey(ns, "", upTo.UnixNano())
	due := false
	err := b.s.db.View(func(tx *bolt.Tx) error {
		_, ab, _, err := b.realmBuckets(tx)
		if err != nil || ab == nil {
			return err
		}
		k, _ := ab.Cursor().Seek([]byte(ns + "\x00"))
		due = k != nil && len(k) >= len(limit) && strings.HasPrefix(string(k), ns+"\x00") && string(k[:len(limit)]) <= string(limit)
		return nil
	})
	if err != nil || !due {
		return err
	}
	return b.removeWhere(ctx, ns, func(k []byte) bool { return string(k[:len(limit)]) <= string(limit) })
}

func (b *bucket) DropNamespace(ctx context.Context, ns string) error {
	return b.removeWhere(ctx, ns, func([]byte) bool { return true })
}

// removeWhere deletes, in one transaction, the objects of namespace ns
// from the oldest while take returns true for their key in the a bucket,
// then removes their blobs.
func (b *bucket) removeWhere(ctx context.Context, ns string, take func(ageKey []byte) bool) error {
	var gone []string
	err := b.s.db.Update(ctx, func(tx *bolt.Tx) error {
		gone = gone[:0]
		ob, ab, nb, err := b.realmBuckets(tx)
		if err != nil {
			return err
		}
		var keys []string
		c := ab.Cursor()
		prefix := ns + "\x00"
		for k, _ := c.Seek([]byte(prefix)); k != nil && strings.HasPrefix(string(k), prefix) && len(k) >= len(prefix)+8 && take(k); k, _ = c.Next() {
			keys = append(keys, string(k[len(prefix)+8:]))
		}
		for _, key := range keys {
			r, err := b.unrecord(tx, ob, ab, nb, ns, key)
			if err != nil {
				return err
			}
			if r != nil {
				gone = append(gone, r.Blob)
			}
		}
		return nil
	})
	if err != nil {
		return storeErr(err)
	}
	for _, name := range gone {
		b.removeBlob(name)
	}
	return nil
}

func (b *bucket) Usage(context.Context) (map[string]int64, int64, error) {
	per := map[string]int64{}
	var count int64
	err := b.s.db.View(func(tx *bolt.Tx) error {
		_, _, nb, err := b.realmBuckets(tx)
		if err != nil || nb == nil {
			return err
		}
		return nb.ForEach(func(k, _ []byte) error {
			used, n, err := usageOf(nb, string(k))
			if n > 0 {
				per[string(k)] += used
			}
			count += n
			return err
		})
	})
	return per, count, err
}

// clear removes the realm's records and its sad_key, then their blobs.
func (b *bucket) clear(ctx context.Context) error {
	var gone []string
	err := b.s.db.Update(ctx, func(tx *bolt.Tx) error {
		gone = gone[:0]
		rs := tx.Bucket(bucketRealms)
		if rs == nil || rs.Bucket([]byte(b.realm)) == nil {
			return nil
		}
		ob, _, _, err := b.realmBuckets(tx)
		if err != nil {
			return err
		}
		bb := tx.Bucket(bucketBlobs)
		err = ob.ForEach(func(k, _ []byte) error {
			r, err := readRecord(ob, k)
			if err != nil {
				return err
			}
			gone = append(gone, r.Blob)
			if bb != nil {
				return bb.Delete([]byte(r.Blob))
			}
			return nil
		})
		if err != nil {
			return err
		}
		sad, err := datadir.Get(rs.Bucket([]byte(b.realm)), keySad)
		if sb := tx.Bucket(bucketSads); err == nil && sb != nil && sad != nil {
			err = sb.Delete(sad)
		}
		if err != nil {
			return err
		}
		return rs.DeleteBucket([]byte(b.realm))
	})
	if err != nil {
		return err
	}
	for _, name := range gone {
		b.removeBlob(name)
	}
	return nil
}

// diskWriter writes new content to the blob folder, hashing it
// (store.Writer).
type diskWriter struct {
	w        *datadir.BlobWriter
	md5, sha hash.Hash
	n        int64
}

func (w *diskWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	w.md5.Write(p[:n])
	w.sha.Write(p[:n])
	w.n += int64(n)
	return n, storeErr(err)
}

func (w *diskWriter) ReadFrom(r io.Reader) (int64, error) {
	buf := make([]byte, 256<<10)
	return io.CopyBuffer(struct{ io.Writer }{w}, r, buf)
}

// finish commits the blob and returns its record, without the object's
// fields.
func (w *diskWriter) finish() (*record, error) {
	name, err := w.w.Commit()
	if err != nil {
		return nil, err
	}
	return &record{Blob: name, Size: w.n, MD5: hex.EncodeToString(w.md5.Sum(nil)), SHA256: hex.EncodeToString(w.sha.Sum(nil))}, nil
}

func (w *diskWriter) Abort() { w.w.Abort() }

// storeErr marks a failure for a full disk (datadir.ErrFull) as
// store.ErrFull too, keeping its message.
func storeErr(err error) error {
	if errors.Is(err, datadir.ErrFull) && !errors.Is(err, store.ErrFull) {
		return fullErr{err}
	}
	return err
}

// fullErr is a write's failure on a full disk.
type fullErr struct{ err error }

func (e fullErr) Error() string   { return e.err.Error() }
func (e fullErr) Unwrap() []error { return []error{e.err, store.ErrFull} }
