// This file holds the layout of the queue on disk (one bbolt file,
// outbox.db, in the outbox's directory), how it is opened, created and
// recognised, and the records it keeps.
//
// Buckets:
//
//	meta    format  "ironflock-outbox 1"
//	        id      8 random bytes: the prefix of every row id
//	        seq     the last sequence number given to a row (8 bytes)
//	        rows, bytes  pending rows and their size (8 bytes each)
//	        batch   the largest batch the sender may have in flight
//	queue   one bucket per table: sequence (8 bytes, big endian) → record
//	dead    row id → dead letter
//
// Every change is one transaction, synced before it returns, so a kill at
// any moment leaves either the state before it or the state after it.

package outbox

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// FileName is the name of the queue file inside an outbox's directory.
const FileName = "outbox.db"

const (
	formatName    = "ironflock-outbox"
	formatVersion = 1
	recordVersion = 1
	// tracedVersion is the layout of a record that keeps the W3C trace
	// context of its Append (docs/wire.md §13): version 1's fields with the
	// traceparent and tracestate after the id. Untraced rows keep version 1.
	tracedVersion = 2
)

var (
	bucketMeta  = []byte("meta")
	bucketQueue = []byte("queue")
	bucketDead  = []byte("dead")

	keyFormat = []byte("format")
	keyID     = []byte("id")
	keySeq    = []byte("seq")
	keyRows   = []byte("rows")
	keyBytes  = []byte("bytes")
	keyBatch  = []byte("batch")
)

// openDB opens or creates the queue file in dir and checks that it is an
// outbox of a format this package reads. It returns the id prefix of the
// directory's rows.
func openDB(dir string, lockTimeout time.Duration) (*bolt.DB, string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, "", diskErr(err)
	}
	path := filepath.Join(dir, FileName)
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, "", reason(ErrForeign, "%s is not a regular file", path)
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout, FreelistType: bolt.FreelistMapType})
	if err != nil {
		return nil, "", openError(path, err)
	}
	var prefix string
	err = db.Update(func(tx *bolt.Tx) error {
		var err error
		prefix, err = initMeta(tx, path)
		return err
	})
	if err != nil {
		_ = db.Close()
		return nil, "", err
	}
	return db, prefix, nil
}

// openError tells a file in use, a damaged file and a disk error apart.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, berrors.ErrTimeout):
		return reason(ErrLocked, "%s is held by another open outbox", path)
	case errors.Is(err, berrors.ErrInvalid), errors.Is(err, berrors.ErrChecksum),
		errors.Is(err, berrors.ErrVersionMismatch), errors.Is(err, berrors.ErrInvalidMapping):
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	case errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrNotExist):
		return diskErr(err)
	}
	// bbolt reports files too small or with unreadable pages in plain
	// errors ("file size too small", "invalid page type", …).
	if fi, serr := os.Stat(path); serr == nil && fi.Size() > 0 {
		return fmt.Errorf("%w: %s: %w", ErrCorrupt, path, err)
	}
	return diskErr(err)
}

// initMeta creates the buckets of a new outbox, or checks an existing one.
func initMeta(tx *bolt.Tx, path string) (string, error) {
	meta := tx.Bucket(bucketMeta)
	if meta == nil {
		foreign := false
		_ = tx.ForEach(func([]byte, *bolt.Bucket) error { foreign = true; return nil })
		if foreign {
			return "", reason(ErrForeign, "%s is a database of another program", path)
		}
		return createMeta(tx)
	}
	format := string(meta.Get(keyFormat))
	name, version, _ := strings.Cut(format, " ")
	if name != formatName {
		return "", reason(ErrForeign, "%s is a database of another program (format %q)", path, format)
	}
	if v, err := strconv.Atoi(version); err != nil || v > formatVersion {
		return "", reason(ErrForeign, "%s is an outbox of a newer format (%q); this package reads format %d", path, format, formatVersion)
	}
	id := meta.Get(keyID)
	if len(id) != 8 || tx.Bucket(bucketQueue) == nil || tx.Bucket(bucketDead) == nil {
		return "", reason(ErrCorrupt, "%s lacks parts of an outbox", path)
	}
	return hex.EncodeToString(id), nil
}

func createMeta(tx *bolt.Tx) (string, error) {
	meta, err := tx.CreateBucket(bucketMeta)
	if err != nil {
		return "", err
	}
	var id [8]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	for k, v := range map[string][]byte{
		string(keyFormat): fmt.Appendf(nil, "%s %d", formatName, formatVersion),
		string(keyID):     id[:],
		string(keySeq):    u64(0),
		string(keyRows):   u64(0),
		string(keyBytes):  u64(0),
	} {
		if err := meta.Put([]byte(k), v); err != nil {
			return "", err
		}
	}
	if _, err := tx.CreateBucket(bucketQueue); err != nil {
		return "", err
	}
	if _, err := tx.CreateBucket(bucketDead); err != nil {
		return "", err
	}
	return hex.EncodeToString(id[:]), nil
}

func u64(v uint64) []byte { return binary.BigEndian.AppendUint64(nil, v) }

func getU64(b *bolt.Bucket, k []byte) uint64 {
	v := b.Get(k)
	if len(v) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(v)
}

// addCounts changes the pending counters of meta by rows and bytes.
func addCounts(tx *bolt.Tx, rows, bytes int64) error {
	meta := tx.Bucket(bucketMeta)
	if err := meta.Put(keyRows, u64(uint64(int64(getU64(meta, keyRows))+rows))); err != nil {
		return err
	}
	return meta.Put(keyBytes, u64(uint64(int64(getU64(meta, keyBytes))+bytes)))
}

// rowID is the id of the row with sequence seq in the directory with
// prefix: 16 hex digits each, so ids sort in append order.
func rowID(prefix string, seq uint64) string {
	return fmt.Sprintf("%s-%016x", prefix, seq)
}

// record is a pending row as stored in its table's bucket.
type record struct {
	seq      uint64
	id       string
	appended time.Time
	trace    traceCtx // the trace context of its Append; zero: none
	row      map[string]any
	size     int   // key and value bytes
	damage   error // the record cannot be read (ErrCorrupt); only seq and size are set
}

// traceCtx is a W3C trace context: traceparent and tracestate.
type traceCtx struct{ parent, state string }

// size is what tr adds to a record on disk.
func (tr traceCtx) size() int {
	if tr.parent == "" {
		return 0
	}
	return uvarintLen(len(tr.parent)) + len(tr.parent) + uvarintLen(len(tr.state)) + len(tr.state)
}

func uvarintLen(n int) int { return len(binary.AppendUvarint(nil, uint64(n))) }

// encodeRecord is the value of a pending row: version, append time (Unix
// nanoseconds), id, for a traced row (version 2) its traceparent and
// tracestate, then the encoded row (codec.go). The id column is not in the
// row: the sender adds it, so the column may change between runs.
func encodeRecord(id string, appended time.Time, tr traceCtx, row []byte) []byte {
	b := make([]byte, 0, 1+binary.MaxVarintLen64+1+len(id)+tr.size()+len(row))
	if tr.parent == "" {
		b = append(b, recordVersion)
	} else {
		b = append(b, tracedVersion)
	}
	b = binary.AppendVarint(b, appended.UnixNano())
	b = appendString(b, id)
	if tr.parent != "" {
		b = appendString(appendString(b, tr.parent), tr.state)
	}
	return append(b, row...)
}

func decodeRecord(key, val []byte) (record, error) {
	r := record{size: len(key) + len(val)}
	if len(key) != 8 || len(val) == 0 || val[0] != recordVersion && val[0] != tracedVersion {
		return r, reason(ErrCorrupt, "queue record %x: unknown layout", key)
	}
	traced := val[0] == tracedVersion
	r.seq = binary.BigEndian.Uint64(key)
	b := val[1:]
	nanos, n := binary.Varint(b)
	if n <= 0 {
		return r, reason(ErrCorrupt, "queue record %x: bad time", key)
	}
	r.appended = time.Unix(0, nanos)
	id, b, err := chunk(b[n:])
	if err != nil {
		return r, fmt.Errorf("%w: queue record %x: %w", ErrCorrupt, key, err)
	}
	r.id = string(id)
	if traced {
		var parent, state []byte
		if parent, b, err = chunk(b); err == nil {
			state, b, err = chunk(b)
		}
		if err != nil {
			return r, fmt.Errorf("%w: queue record %x: trace context: %w", ErrCorrupt, key, err)
		}
		r.trace = traceCtx{string(parent), string(state)}
	}
	v, rest, err := decodeWire(b)
	m, ok := v.(map[string]any)
	if err == nil && (!ok || len(rest) != 0) {
		err = errDamaged
	}
	if err != nil {
		return r, fmt.Errorf("%w: queue record %x: %w", ErrCorrupt, key, err)
	}
	r.row = m
	return r, nil
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}
