// This file holds the opening of a data folder's objects (OpenObjects):
// the check of its blobs against its records at every start (and by
// flockd check, CheckObjects), and the data backends' sad_keys, which
// must outlive restarts so that permanent and presigned URLs keep
// working.

package folder

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// ObjectsFile is the name of the objects' file in a data folder, without
// its ".db".
const ObjectsFile = "files"

// BlobFolder is the name of the folder of the objects' content in a data
// folder.
const BlobFolder = "files"

// OpenObjects opens the objects of the data folder d (files.db and the
// blob folder files/) and checks the blobs against their records (sizes
// only): a record without its blob is refused (datadir.ErrDamaged,
// naming the object), a blob no record names (a kill between the two) is
// removed, when files.db is known to hold its last commit: one that lost
// records would make their blobs look orphaned.
func OpenObjects(d *datadir.Dir, log *slog.Logger) (*Objects, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	db, err := d.DB(ObjectsFile)
	if err != nil {
		return nil, err
	}
	blobs, err := d.Blobs(BlobFolder)
	if err != nil {
		return nil, err
	}
	whole := d.Whole(ObjectsFile + ".db")
	rep, err := CheckBlobs(db, blobs, d.Path(), whole, false)
	if err != nil {
		return nil, err
	}
	switch {
	case rep.Orphans+rep.Temps > 0 && whole:
		log.Info("data folder: removed the content of file objects a kill left without a record", "folder", d.Path(),
			"blobs", rep.Orphans, "half_written", rep.Temps)
	case rep.Orphans+rep.Temps > 0:
		log.Info("data folder: content no record names kept: files.db's last commit is not on record yet (COMMITS); the next start removes it",
			"folder", d.Path(), "blobs", rep.Orphans, "half_written", rep.Temps)
	}
	return &Objects{db: db, blobs: blobs, log: log}, nil
}

// CheckObjects checks the objects of a data folder opened read-only
// without changing anything: every record's blob with its size and its
// content against the record's SHA-256 (CheckBlobs with content). A
// folder without files.db holds no objects.
func CheckObjects(d *datadir.Dir) (BlobReport, error) {
	db, err := d.DB(ObjectsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return BlobReport{}, nil
	}
	if err != nil {
		return BlobReport{}, err
	}
	blobs, err := d.Blobs(BlobFolder)
	if err != nil {
		return BlobReport{}, err
	}
	return CheckBlobs(db, blobs, d.Path(), false, true)
}

// BlobReport is what CheckBlobs found.
type BlobReport struct {
	Objects int64 // records, each with its blob
	Bytes   int64 // their content
	Orphans int   // blobs no record names (removed when fixing)
	Temps   int   // files a kill left half written (removed when fixing)
	// Hashed is the content read to compare with the records' SHA-256
	// (with content), in HashTime.
	Hashed   int64
	HashTime time.Duration
}

// CheckBlobs checks the blob folder against the records of db: every
// record's blob must be there with the recorded size, and, when content
// is true, hold the bytes its record's SHA-256 says (each blob is read
// whole: see BlobReport.HashTime for what it costs); a missing, short or
// changed blob is a damaged folder (ErrDamaged), named with its object.
// Blobs no record names (a kill between a blob and its record, or between
// a deletion and the blob's removal) and half-written temporary files
// are counted, and removed when fix is true: the caller passes fix only
// when db is known to hold its last commit (datadir.Dir.Whole), for a
// record store that lost records would make every blob look orphaned.
func CheckBlobs(db *datadir.DB, blobs *datadir.Blobs, dir string, fix, content bool) (BlobReport, error) {
	var rep BlobReport
	type owned struct {
		name   string
		size   int64
		owner  string
		sha256 string // the object's record's
	}
	var records []owned
	err := db.View(func(tx *bolt.Tx) error {
		bb := tx.Bucket(bucketBlobs)
		if bb == nil {
			return nil
		}
		return bb.ForEach(func(k, raw []byte) error {
			v, err := datadir.Value(k, raw)
			if err != nil {
				return err
			}
			if len(v) < 8 {
				return fmt.Errorf("%w: blob record %q of %d bytes", datadir.ErrDamaged, k, len(v))
			}
			o := owned{name: string(k), size: int64(binary.BigEndian.Uint64(v)), owner: string(v[8:])}
			r, err := ownerRecord(tx, o.owner)
			if err != nil {
				return err
			}
			if r == nil || r.Blob != o.name {
				realm, rest, _ := strings.Cut(o.owner, "\x00")
				ns, key, _ := strings.Cut(rest, "\x00")
				return fmt.Errorf("%w: the content %s is recorded as that of object %q in namespace %q of %s, which has no record naming it; it is neither reset nor served",
					datadir.ErrDamaged, blobs.Describe(o.name), key, ns, realm)
			}
			o.sha256 = r.SHA256
			records = append(records, o)
			return nil
		})
	})
	if err == nil {
		// The records the namespaces count must be those the blob
		// entries name: a bucket lost (a damaged bucket name, which no
		// checksum covers) would make objects vanish, or their content
		// look orphaned and be removed.
		var n int64
		if n, err = countObjects(db); err == nil && n != int64(len(records)) {
			err = fmt.Errorf("%w: its namespaces count %d objects, its content entries name %d; it is neither reset nor served",
				datadir.ErrDamaged, n, len(records))
		}
	}
	if err != nil {
		return rep, fmt.Errorf("data folder %s: %s.db: %w", dir, ObjectsFile, err)
	}
	damaged := func(o owned, what string) error {
		realm, rest, _ := strings.Cut(o.owner, "\x00")
		ns, key, _ := strings.Cut(rest, "\x00")
		return fmt.Errorf("%w: %s: %s: %s, the content of object %q in namespace %q of %s; it is neither reset nor served (restore a copy of the folder, or start anew with another folder or -memory)",
			datadir.ErrDamaged, dir, blobs.Describe(o.name), what, key, ns, realm)
	}
	var orphans []string
	i := 0
	err = blobs.Walk(func(name string, size int64) error {
		if i < len(records) && records[i].name < name {
			return damaged(records[i], "missing")
		}
		if i < len(records) && records[i].name == name {
			o := records[i]
			i++
			if size != o.size {
				return damaged(o, fmt.Sprintf("holds %d bytes, its record %d", size, o.size))
			}
			if content {
				start := time.Now()
				sum, err := hashBlob(blobs, o.name)
				rep.HashTime += time.Since(start)
				rep.Hashed += size
				if err != nil {
					return err
				}
				if sum != o.sha256 {
					return damaged(o, fmt.Sprintf("its content (SHA-256 %.12s…) does not match its record's (%.12s…)", sum, o.sha256))
				}
			}
			rep.Objects++
			rep.Bytes += size
			return nil
		}
		orphans = append(orphans, name)
		return nil
	})
	if err == nil && i < len(records) {
		err = damaged(records[i], "missing")
	}
	if err != nil {
		return rep, err
	}
	rep.Orphans = len(orphans)
	if !fix {
		rep.Temps, err = blobs.Temps()
		return rep, err
	}
	for _, name := range orphans {
		if err := blobs.Remove(name); err != nil {
			return rep, err
		}
	}
	rep.Temps, err = blobs.RemoveTemps()
	return rep, err
}

// ownerRecord returns the record of the object owner names (realm \0 ns
// \0 key), nil when there is none.
func ownerRecord(tx *bolt.Tx, owner string) (*record, error) {
	realm, rest, _ := strings.Cut(owner, "\x00")
	ns, key, _ := strings.Cut(rest, "\x00")
	rb := tx.Bucket(bucketRealms)
	if rb != nil {
		rb = rb.Bucket([]byte(realm))
	}
	if rb == nil || rb.Bucket(keyObjects) == nil {
		return nil, nil
	}
	return readRecord(rb.Bucket(keyObjects), objectKey(ns, key))
}

// hashBlob returns the hex SHA-256 of the blob name.
func hashBlob(blobs *datadir.Blobs, name string) (string, error) {
	f, err := blobs.Open(name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.CopyBuffer(h, struct{ io.Reader }{f}, make([]byte, 256<<10)); err != nil {
		return "", fmt.Errorf("%s: %w", blobs.Describe(name), err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// sadOf returns the sad_key of a realm kept in db, handing out the next
// one (and keeping it) the first time.
func sadOf(db *datadir.DB, realm string) (int64, error) {
	var sad int64
	err := db.Update(context.Background(), func(tx *bolt.Tx) error {
		rb, err := createPath(tx, bucketRealms, []byte(realm))
		if err != nil {
			return err
		}
		for _, k := range [][]byte{keyObjects, keyAges, keyUsage} {
			if _, err := datadir.CreateBucket(rb, k); err != nil {
				return err
			}
		}
		raw, err := datadir.Get(rb, keySad)
		switch {
		case err != nil:
			return err
		case len(raw) == 8:
			sad = int64(binary.BigEndian.Uint64(raw))
			return nil
		case raw != nil:
			return fmt.Errorf("%w: the sad_key of %s has %d bytes", datadir.ErrDamaged, realm, len(raw))
		}
		cb, err := datadir.CreateBucket(tx, bucketCounters)
		if err != nil {
			return err
		}
		last, err := datadir.Get(cb, keySad)
		if err != nil {
			return err
		}
		if len(last) == 8 {
			sad = int64(binary.BigEndian.Uint64(last))
		}
		sad++
		v := binary.BigEndian.AppendUint64(nil, uint64(sad))
		sb, err := datadir.CreateBucket(tx, bucketSads)
		if err != nil {
			return err
		}
		return errors.Join(datadir.Put(cb, keySad, v), datadir.Put(rb, keySad, v), datadir.Put(sb, v, []byte(realm)))
	})
	return sad, err
}

// realmOfSad returns the realm whose data backend has sad_key sad in db,
// "" when none has.
func realmOfSad(db *datadir.DB, sad int64) (string, error) {
	var realm string
	err := db.View(func(tx *bolt.Tx) error {
		sb := tx.Bucket(bucketSads)
		if sb == nil {
			return nil
		}
		k := binary.BigEndian.AppendUint64(nil, uint64(sad))
		v, err := datadir.Get(sb, k)
		realm = string(bytes.Clone(v))
		return err
	})
	return realm, err
}

// countObjects returns how many objects db records over every realm.
func countObjects(db *datadir.DB) (int64, error) {
	var n int64
	err := db.View(func(tx *bolt.Tx) error {
		rs := tx.Bucket(bucketRealms)
		if rs == nil {
			return nil
		}
		return rs.ForEachBucket(func(realm []byte) error {
			nb := rs.Bucket(realm).Bucket(keyUsage)
			if nb == nil {
				return nil
			}
			return nb.ForEach(func(k, _ []byte) error {
				_, count, err := usageOf(nb, string(k))
				n += count
				return err
			})
		})
	})
	return n, err
}
