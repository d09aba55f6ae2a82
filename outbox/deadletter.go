// This file holds the dead-letter list: rows the data backend refused for
// good, kept with its error until they are retried or dropped. It is the
// bucket "dead", keyed by row id, so it lists in append order.

package outbox

import (
	"context"
	"encoding/binary"
	"errors"
	"iter"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/client"
)

// DeadLetter is a row the data backend refused for good.
type DeadLetter struct {
	// ID is the row's id, as Append returned it.
	ID string
	// Table is the table the row was appended to.
	Table string
	// Row is the row in its wire form (client.Encode), as it was sent.
	// It is nil for a record the outbox could not read back (URI
	// empty, Reason saying so).
	Row map[string]any
	// URI is the backend's error URI (wamp.error.runtime_error,
	// sys.dataservice.error.…); empty for an error without one
	// (client.ErrUnknownTable carries wamp.error.no_such_procedure).
	URI string
	// Reason is the error's text.
	Reason string
	// Appended is when the row was appended, Failed when it was refused.
	Appended time.Time
	Failed   time.Time
	// TraceParent and TraceState are the W3C trace context of the row's
	// Append (with the client's WithTracePropagation), which Retry
	// delivers the row in; empty when it had none.
	TraceParent, TraceState string
}

// pageSize is how many dead letters DeadLetters reads per transaction, so
// the caller's loop never holds the file.
const pageSize = 256

// deadLetter moves recs from the queue of table to the dead-letter list
// with the refusal err.
func (o *Outbox) deadLetter(table string, recs []record, refusal error) {
	now := time.Now()
	var rows, bytes int64
	var moved []record
	o.leaving.Lock()
	err := o.db.Update(func(tx *bolt.Tx) error {
		rows, bytes, moved = 0, 0, moved[:0]
		q, dead := tx.Bucket(bucketQueue).Bucket([]byte(table)), tx.Bucket(bucketDead)
		for _, r := range recs {
			k := u64(r.seq)
			if q == nil || q.Get(k) == nil {
				continue
			}
			if err := q.Delete(k); err != nil {
				return err
			}
			id := r.id
			if id == "" { // a damaged record
				id = rowID(o.prefix, r.seq)
			}
			val, err := encodeDead(table, r, client.WampURI(refusal), refusal.Error(), now)
			if err != nil {
				return err
			}
			if err := dead.Put([]byte(id), val); err != nil {
				return err
			}
			rows, bytes, moved = rows+1, bytes+int64(r.size), append(moved, r)
		}
		return addCounts(tx, -rows, -bytes)
	})
	if err != nil {
		o.leaving.Unlock()
		o.noteError(diskErr(err))
		return
	}
	o.mu.Lock()
	o.leftLocked(rows, bytes)
	o.counts.deadLettered += uint64(rows)
	o.mu.Unlock()
	o.undelivered(moved, true)
	o.leaving.Unlock()
	if o.hooks != nil {
		o.hooks.deadLettered(table, moved, refusal)
	}
	o.depthChanged()
	o.checkWaiters()
	o.noteError(refusal)
	o.log.Warn("outbox: rows refused for good moved to the dead-letter list", "table", table, "rows", len(moved), "err", refusal)
}

// encodeDead is the value of a dead letter: version, table, append and
// failure times, URI, reason, for a traced row (version 2) its
// traceparent and tracestate, then the row.
func encodeDead(table string, r record, uri, why string, failed time.Time) ([]byte, error) {
	b := []byte{recordVersion}
	if r.trace.parent != "" {
		b[0] = tracedVersion
	}
	b = appendString(b, table)
	b = binary.AppendVarint(b, r.appended.UnixNano())
	b = binary.AppendVarint(b, failed.UnixNano())
	b = appendString(b, uri)
	b = appendString(b, why)
	if r.trace.parent != "" {
		b = appendString(appendString(b, r.trace.parent), r.trace.state)
	}
	if r.row == nil {
		return append(b, tagNil), nil
	}
	return encodeWire(b, r.row)
}

func decodeDead(key, val []byte) (DeadLetter, error) {
	d := DeadLetter{ID: string(key)}
	bad := func(what string) (DeadLetter, error) {
		return d, reason(ErrCorrupt, "dead letter %q: bad %s", key, what)
	}
	if len(val) == 0 || val[0] != recordVersion && val[0] != tracedVersion {
		return bad("layout")
	}
	table, b, err := chunk(val[1:])
	if err != nil {
		return bad("table")
	}
	d.Table = string(table)
	var times [2]int64
	for i := range times {
		n := 0
		if times[i], n = binary.Varint(b); n <= 0 {
			return bad("time")
		}
		b = b[n:]
	}
	d.Appended, d.Failed = time.Unix(0, times[0]), time.Unix(0, times[1])
	var uri, why []byte
	if uri, b, err = chunk(b); err != nil {
		return bad("URI")
	}
	if why, b, err = chunk(b); err != nil {
		return bad("reason")
	}
	d.URI, d.Reason = string(uri), string(why)
	if val[0] == tracedVersion {
		var parent, state []byte
		if parent, b, err = chunk(b); err == nil {
			state, b, err = chunk(b)
		}
		if err != nil || len(parent) == 0 {
			return bad("trace context")
		}
		d.TraceParent, d.TraceState = string(parent), string(state)
	}
	v, rest, err := decodeWire(b)
	if err != nil || len(rest) != 0 {
		return bad("row")
	}
	d.Row, _ = v.(map[string]any)
	return d, nil
}

// DeadLetters iterates over the dead-letter list, oldest row first. It
// reads the list a page at a time, so the loop may call the outbox's
// other methods (Retry, Drop, Append). A disk error or a damaged entry
// is yielded as an error (ErrDisk, ErrCorrupt) and ends the iteration.
func (o *Outbox) DeadLetters() iter.Seq2[DeadLetter, error] {
	return func(yield func(DeadLetter, error) bool) {
		var after []byte
		for {
			var page []DeadLetter
			var damaged error
			err := o.db.View(func(tx *bolt.Tx) error {
				c := tx.Bucket(bucketDead).Cursor()
				k, v := c.First()
				if after != nil {
					if k, v = c.Seek(after); k != nil && string(k) == string(after) {
						k, v = c.Next()
					}
				}
				for ; k != nil && len(page) < pageSize; k, v = c.Next() {
					d, err := decodeDead(k, v)
					if err != nil {
						damaged = err
						return nil
					}
					page = append(page, d)
				}
				return nil
			})
			for _, d := range page {
				if !yield(d, nil) {
					return
				}
			}
			if err != nil || damaged != nil {
				yield(DeadLetter{}, opErr("DeadLetters", "", errors.Join(diskErr(err), damaged)))
				return
			}
			if len(page) < pageSize {
				return
			}
			after = []byte(page[len(page)-1].ID)
		}
	}
}

// Retry puts the dead letters with these ids back at the end of their
// tables' queues (ignoring the size limit) and returns how many it found.
// They keep their ids; an id that is not in the list is skipped.
func (o *Outbox) Retry(ctx context.Context, ids ...string) (int, error) {
	n, err := o.takeDead(ctx, ids, true)
	if n > 0 {
		select {
		case o.work <- struct{}{}:
		default:
		}
	}
	return n, opErr("Retry", "", err)
}

// Drop deletes the dead letters with these ids for good and returns how
// many it found; an id that is not in the list is skipped.
func (o *Outbox) Drop(ctx context.Context, ids ...string) (int, error) {
	n, err := o.takeDead(ctx, ids, false)
	return n, opErr("Drop", "", err)
}

// takeDead removes dead letters, requeueing them when requeue is set.
func (o *Outbox) takeDead(ctx context.Context, ids []string, requeue bool) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if o.isClosed() {
		return 0, ErrClosed
	}
	var n int
	var seq uint64
	var rows, bytes int64
	err := o.db.Update(func(tx *bolt.Tx) error {
		n, rows, bytes = 0, 0, 0
		meta, dead := tx.Bucket(bucketMeta), tx.Bucket(bucketDead)
		seq = getU64(meta, keySeq)
		for _, id := range ids {
			v := dead.Get([]byte(id))
			if v == nil {
				continue
			}
			n++
			if requeue {
				d, err := decodeDead([]byte(id), v)
				if err != nil {
					return err
				}
				if d.Row == nil {
					return reason(ErrCorrupt, "dead letter %q has no row to send", id)
				}
				row, err := encodeWire(nil, d.Row)
				if err != nil {
					return err
				}
				b, err := tx.Bucket(bucketQueue).CreateBucketIfNotExists([]byte(d.Table))
				if err != nil {
					return err
				}
				seq++
				val := encodeRecord(d.ID, d.Appended, traceCtx{d.TraceParent, d.TraceState}, row)
				if err := b.Put(u64(seq), val); err != nil {
					return err
				}
				rows, bytes = rows+1, bytes+int64(8+len(val))
			}
			if err := dead.Delete([]byte(id)); err != nil {
				return err
			}
		}
		if err := meta.Put(keySeq, u64(seq)); err != nil {
			return err
		}
		return addCounts(tx, rows, bytes)
	})
	if err != nil {
		return 0, diskErr(err)
	}
	o.mu.Lock()
	o.lastSeq = max(o.lastSeq, seq)
	o.pending += rows
	o.pendingBytes += bytes
	o.mu.Unlock()
	return n, nil
}
