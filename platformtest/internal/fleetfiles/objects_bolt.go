// This file holds the objectStore of a data folder (objects.go): a
// bucket's records in files.db and their content in the blob folder
// files/ (datadir.Blobs), so that objects survive restarts and a kill,
// and neither records nor content sit in memory. It serves no URI.
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
// (check_bolt.go); a record whose blob is missing or of another size is a
// damaged folder.

package fleetfiles

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
)

// Buckets and keys of files.db.
var (
	bucketRealms   = []byte("realms")
	bucketBlobs    = []byte("blobs")
	bucketSads     = []byte("sads")
	bucketCounters = []byte("counters")
	keySad         = []byte("s")
	keyObjects     = []byte("o")
	keyAges        = []byte("a")
	keyUsage       = []byte("n")
)

// boltObjects is the objectStore of one bucket in a data folder.
type boltObjects struct {
	db      *datadir.DB
	blobs   *datadir.Blobs
	realm   string
	log     *slog.Logger
	checked *checkedBlobs // the service's blobs found whole (verify.go)
}

// record is an object's record in files.db.
type record struct {
	Blob        string `json:"blob"`
	Size        int64  `json:"size"`
	MD5         string `json:"md5"`
	SHA256      string `json:"sha256"`
	ContentType string `json:"type"`
	Modified    int64  `json:"modified"` // Unix nanoseconds
}

func (r *record) object(ns, key string) *object {
	return &object{objectID: objectID{ns, key}, contentType: r.ContentType, modified: time.Unix(0, r.Modified).UTC(),
		blob: &blob{size: r.Size, md5: r.MD5, sha256: r.SHA256, name: r.Blob}}
}

func newRecord(o *object) *record {
	return &record{Blob: o.blob.name, Size: o.blob.size, MD5: o.blob.md5, SHA256: o.blob.sha256,
		ContentType: o.contentType, Modified: o.modified.UnixNano()}
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

// realmBuckets returns the buckets of the store's realm in tx, creating
// them in a writable one; nil in a read-only tx without them.
func (s *boltObjects) realmBuckets(tx *bolt.Tx) (o, a, n *bolt.Bucket, err error) {
	rb := tx.Bucket(bucketRealms)
	if rb != nil {
		rb = rb.Bucket([]byte(s.realm))
	}
	if rb == nil && tx.Writable() {
		if rb, err = createPath(tx, bucketRealms, []byte(s.realm)); err != nil {
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

func (s *boltObjects) get(ns, key string) (*object, error) {
	for attempt := 0; ; attempt++ {
		var r *record
		err := s.db.View(func(tx *bolt.Tx) error {
			ob, _, _, err := s.realmBuckets(tx)
			if err != nil || ob == nil {
				return err
			}
			r, err = readRecord(ob, objectKey(ns, key))
			return err
		})
		if err != nil || r == nil {
			return nil, err
		}
		o := r.object(ns, key)
		f, err := s.blobs.Open(r.Blob)
		if errors.Is(err, fs.ErrNotExist) && attempt < 3 {
			continue // replaced or deleted between the read and the open
		}
		if err != nil {
			return nil, fmt.Errorf("the content of %s/%s (%s): %w", ns, key, s.blobs.Describe(r.Blob), err)
		}
		o.blob.file = f
		o.blob.check = &contentCheck{checked: s.checked, where: s.blobs.Describe(r.Blob),
			object: fmt.Sprintf("object %q in namespace %q of %s", key, ns, s.realm)}
		o.blob.refs.Store(1)
		return o, nil
	}
}

func (s *boltObjects) fits(ns, key string, size, quota int64) (*failure, error) {
	var f *failure
	err := s.db.View(func(tx *bolt.Tx) error {
		ob, _, nb, err := s.realmBuckets(tx)
		if err != nil || ob == nil {
			f = quotaFailure(0, size, size, quota)
			return err
		}
		f, err = s.quotaCheck(ob, nb, ns, key, size, quota)
		return err
	})
	return f, err
}

// quotaCheck reports QUOTA_EXCEEDED when size bytes as ns/key would not
// fit quota.
func (s *boltObjects) quotaCheck(ob, nb *bolt.Bucket, ns, key string, size, quota int64) (*failure, error) {
	used, err := totalUsed(nb)
	if err != nil {
		return nil, err
	}
	after := used + size
	old, err := readRecord(ob, objectKey(ns, key))
	if err != nil {
		return nil, err
	}
	if old != nil {
		after -= old.Size
	}
	return quotaFailure(used, after, size, quota), nil
}

func (s *boltObjects) put(o *object, quota int64) (*object, *failure, error) {
	var old *object
	var f *failure
	err := s.db.Update(context.Background(), func(tx *bolt.Tx) error {
		old, f = nil, nil
		ob, ab, nb, err := s.realmBuckets(tx)
		if err != nil {
			return err
		}
		if f, err = s.quotaCheck(ob, nb, o.ns, o.key, o.blob.size, quota); err != nil || f != nil {
			return err
		}
		if old, err = s.unrecord(tx, ob, ab, nb, o.ns, o.key); err != nil {
			return err
		}
		return s.record(tx, ob, ab, nb, o)
	})
	if err != nil || f != nil {
		s.removeBlob(o.blob.name)
		return nil, f, err
	}
	if old != nil {
		s.removeBlob(old.blob.name)
	}
	return old, nil, nil
}

// record stores o's record, its retention entry, its blob's owner and
// its usage (in tx).
func (s *boltObjects) record(tx *bolt.Tx, ob, ab, nb *bolt.Bucket, o *object) error {
	raw, err := json.Marshal(newRecord(o))
	if err != nil {
		return err
	}
	bb, err := datadir.CreateBucket(tx, bucketBlobs)
	if err != nil {
		return err
	}
	return errors.Join(
		datadir.Put(ob, objectKey(o.ns, o.key), raw),
		datadir.Put(ab, ageKey(o.ns, o.key, o.modified.UnixNano()), nil),
		datadir.Put(bb, []byte(o.blob.name), blobOwner(o.blob.size, s.realm, o.ns, o.key)),
		addUsage(nb, o.ns, o.blob.size, 1),
	)
}

// unrecord deletes the record of ns/key with its entries (in tx) and
// returns the object it described, nil when there was none.
func (s *boltObjects) unrecord(tx *bolt.Tx, ob, ab, nb *bolt.Bucket, ns, key string) (*object, error) {
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
	return r.object(ns, key), err
}

// removeBlob removes a blob no record names any longer; a failure leaves
// it to the check at the next start.
func (s *boltObjects) removeBlob(name string) {
	if name == "" {
		return
	}
	if err := s.blobs.Remove(name); err != nil {
		s.log.Warn("files: a replaced object's content not removed; the next start removes it", "blob", s.blobs.Describe(name), "err", err)
	}
}

func (s *boltObjects) remove(ns, key string) (*object, error) {
	var old *object
	err := s.db.Update(context.Background(), func(tx *bolt.Tx) error {
		ob, ab, nb, err := s.realmBuckets(tx)
		if err != nil {
			return err
		}
		old, err = s.unrecord(tx, ob, ab, nb, ns, key)
		return err
	})
	if err != nil || old == nil {
		return nil, err
	}
	s.removeBlob(old.blob.name)
	return old, nil
}

func (s *boltObjects) scan(ns, prefix, from string, fn func(*object) (string, bool)) error {
	return s.db.View(func(tx *bolt.Tx) error {
		ob, _, _, err := s.realmBuckets(tx)
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

func (s *boltObjects) all(fn func(*object) bool) error {
	return s.db.View(func(tx *bolt.Tx) error {
		ob, _, _, err := s.realmBuckets(tx)
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

func (s *boltObjects) expire(ns string, upTo time.Time) error {
	limit := ageKey(ns, "", upTo.UnixNano())
	due := false
	err := s.db.View(func(tx *bolt.Tx) error {
		_, ab, _, err := s.realmBuckets(tx)
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
	return s.removeWhere(ns, func(k []byte) bool { return string(k[:len(limit)]) <= string(limit) })
}

func (s *boltObjects) removeNamespace(ns string) error {
	return s.removeWhere(ns, func([]byte) bool { return true })
}

// removeWhere deletes, in one transaction, the objects of namespace ns
// from the oldest while take returns true for their key in the a bucket,
// then removes their blobs.
func (s *boltObjects) removeWhere(ns string, take func(ageKey []byte) bool) error {
	var gone []string
	err := s.db.Update(context.Background(), func(tx *bolt.Tx) error {
		gone = gone[:0]
		ob, ab, nb, err := s.realmBuckets(tx)
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
			o, err := s.unrecord(tx, ob, ab, nb, ns, key)
			if err != nil {
				return err
			}
			if o != nil {
				gone = append(gone, o.blob.name)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, name := range gone {
		s.removeBlob(name)
	}
	return nil
}

func (s *boltObjects) usage() (map[string]int64, int64, error) {
	per := map[string]int64{}
	var count int64
	err := s.db.View(func(tx *bolt.Tx) error {
		_, _, nb, err := s.realmBuckets(tx)
		if err != nil || nb == nil {
			return err
		}
		return nb.ForEach(func(k, _ []byte) error {
			used, n, err := usageOf(nb, string(k))
			per[string(k)] += used
			count += n
			return err
		})
	})
	return per, count, err
}

func (s *boltObjects) newBlob(int64) (blobWriter, error) {
	w, err := s.blobs.Create()
	if err != nil {
		return nil, err
	}
	return &diskWriter{w: w, md5: md5.New(), sha: sha256.New()}, nil
}

func (s *boltObjects) copyBlob(bl *blob) (*blob, error) {
	name, err := s.blobs.Link(bl.name)
	if err != nil {
		return nil, err
	}
	cp := &blob{size: bl.size, md5: bl.md5, sha256: bl.sha256, name: name}
	cp.refs.Store(1)
	return cp, nil
}

// clear removes the realm's records, then their blobs.
func (s *boltObjects) clear() error {
	var gone []string
	err := s.db.Update(context.Background(), func(tx *bolt.Tx) error {
		gone = gone[:0]
		ob, _, _, err := s.realmBuckets(tx)
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
		rs := tx.Bucket(bucketRealms)
		sad, err := datadir.Get(rs.Bucket([]byte(s.realm)), keySad)
		if sb := tx.Bucket(bucketSads); err == nil && sb != nil && sad != nil {
			err = sb.Delete(sad)
		}
		if err != nil {
			return err
		}
		return rs.DeleteBucket([]byte(s.realm))
	})
	if err != nil {
		return err
	}
	for _, name := range gone {
		s.removeBlob(name)
	}
	return nil
}

func (s *boltObjects) close() {}

// diskWriter writes new content to the blob folder, hashing it.
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
	return n, err
}

func (w *diskWriter) ReadFrom(r io.Reader) (int64, error) { return copyLarge(w, r) }

func (w *diskWriter) finish() (*blob, error) {
	name, err := w.w.Commit()
	if err != nil {
		return nil, err
	}
	b := &blob{size: w.n, md5: hex.EncodeToString(w.md5.Sum(nil)), sha256: hex.EncodeToString(w.sha.Sum(nil)), name: name}
	b.refs.Store(1)
	return b, nil
}

func (w *diskWriter) abort() { w.w.Abort() }
