// This file holds Append and AppendRows: rows encoded in the caller's
// goroutine, then committed by one goroutine (the committer) that writes
// the rows of every Append waiting at that moment in one synced
// transaction (group commit), and applies the size limit and its policy.

package outbox

import (
	"context"
	"encoding/binary"
	"errors"
	"reflect"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/client"
)

// maxGroup bounds the Appends one transaction commits.
const maxGroup = 256

// idLen is the length of a row id: 16 hex digits, '-', 16 hex digits.
const idLen = 33

// appendReq is one Append or AppendRows on its way to the committer.
type appendReq struct {
	table    string
	rows     [][]byte // encoded rows
	size     int64    // their size on disk, records and keys
	appended time.Time
	trace    traceCtx // the trace context of the caller's ctx
	done     chan appendRes
}

type appendRes struct {
	ids []string
	err error
}

// errNoRoom tells a Blocked appender to wait for room.
var errNoRoom = errors.New("no room")

// Append stores row in the queue of table and returns its id once it is
// on disk (synced): from then on it survives a crash and is delivered.
// row is a struct (by its json tags), a map or any value that encodes to
// a row object; it is converted to its wire form now (client.Encode), so
// later changes to it do not matter. With WithIDColumn the row carries
// its id in that column when sent.
//
// At the size limit Append follows the policy (WithFullPolicy): Block
// waits for room until ctx ends, Fail returns ErrFull, DropOldest deletes
// the oldest rows. It fails with ErrInvalidArgument for a bad table name
// or a row that is not an object, ErrDisk when the disk refuses the
// write (nothing was stored) and ErrClosed after Close.
func (o *Outbox) Append(ctx context.Context, table string, row any) (string, error) {
	const op = "Append"
	w, err := client.Encode(row)
	if err != nil {
		return "", opErr(op, table, reason(ErrInvalidArgument, "%v", err))
	}
	m, ok := w.(map[string]any)
	if !ok || m == nil {
		return "", opErr(op, table, reason(ErrInvalidArgument, "the row is not an object (%T)", row))
	}
	ids, err := o.append(ctx, op, table, []map[string]any{m})
	if err != nil {
		return "", err
	}
	return ids[0], nil
}

// AppendRows stores a non-empty slice or array of rows like Append, all
// in one synced transaction (all or none), and returns their ids in order.
// The rows are delivered in that order; the sender may cut them into
// several bulk appends, or join them with rows appended before and after.
func (o *Outbox) AppendRows(ctx context.Context, table string, rows any) ([]string, error) {
	const op = "AppendRows"
	rv := reflect.ValueOf(rows)
	if !rv.IsValid() || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) || rv.Len() == 0 {
		return nil, opErr(op, table, reason(ErrInvalidArgument, "rows must be a non-empty slice of rows, got %T", rows))
	}
	w, err := client.Encode(rows)
	if err != nil {
		return nil, opErr(op, table, reason(ErrInvalidArgument, "%v", err))
	}
	list, _ := w.([]any)
	ms := make([]map[string]any, len(list))
	for i, r := range list {
		m, ok := r.(map[string]any)
		if !ok || m == nil {
			return nil, opErr(op, table, reason(ErrInvalidArgument, "rows[%d] is not an object", i))
		}
		ms[i] = m
	}
	return o.append(ctx, op, table, ms)
}

// append encodes rows and hands them to the committer, waiting for room
// under the Block policy.
func (o *Outbox) append(ctx context.Context, op, table string, rows []map[string]any) ([]string, error) {
	if err := checkName("table", table, false); err != nil {
		return nil, opErr(op, table, err)
	}
	req := &appendReq{table: table, rows: make([][]byte, len(rows)), appended: time.Now()}
	req.trace.parent, req.trace.state = o.c.InjectTrace(ctx)
	for i, r := range rows {
		b, err := encodeWire(nil, r)
		if err != nil {
			return nil, opErr(op, table, reason(ErrInvalidArgument, "rows[%d]: %v", i, err))
		}
		req.rows[i] = b
		req.size += recordSize(req.appended, b) + int64(req.trace.size())
	}
	if (o.set.maxRows > 0 && int64(len(rows)) > o.set.maxRows) || (o.set.maxBytes > 0 && req.size > o.set.maxBytes) {
		return nil, opErr(op, table, reason(ErrFull, "%d rows of %d bytes exceed the limit itself (%s)", len(rows), req.size, o.set.limits()))
	}
	o.mu.Lock()
	if o.closed {
		o.mu.Unlock()
		return nil, opErr(op, table, ErrClosed)
	}
	o.appending.Add(1)
	o.mu.Unlock()
	defer o.appending.Done()
	for {
		if err := ctx.Err(); err != nil {
			return nil, opErr(op, table, err)
		}
		space := o.spaceChan()
		req.done = make(chan appendRes, 1)
		o.appends <- req // the committer runs until every appender is gone
		res := <-req.done
		if !errors.Is(res.err, errNoRoom) {
			if res.err == nil && o.hooks != nil {
				o.hooks.enqueued(ctx, table, res.ids, req.size)
			}
			return res.ids, opErr(op, table, res.err)
		}
		select {
		case <-space:
		case <-ctx.Done():
			return nil, opErr(op, table, ctx.Err())
		case <-o.quit:
			return nil, opErr(op, table, ErrClosed)
		}
	}
}

// recordSize is the size of a row's key and record on disk.
func recordSize(appended time.Time, row []byte) int64 {
	return int64(8 + 1 + varintLen(appended.UnixNano()) + 1 + idLen + len(row))
}

func varintLen(v int64) int { return len(binary.AppendVarint(nil, v)) }

// committer writes the rows of waiting appends, a group per transaction.
func (o *Outbox) committer() {
	defer o.done.Done()
	for {
		var group []*appendReq
		select {
		case r := <-o.appends:
			group = append(group, r)
		case <-o.stopWrite:
			return
		}
	more:
		for len(group) < maxGroup {
			select {
			case r := <-o.appends:
				group = append(group, r)
			default:
				break more
			}
		}
		o.commit(group)
	}
}

// commit writes a group of appends in one transaction and answers each.
func (o *Outbox) commit(group []*appendReq) {
	res := make([]appendRes, len(group))
	var dropped []record
	var seq uint64
	var rows, bytes, rows0, bytes0 int64
	if o.set.policy == DropOldest { // rows may leave the queue: see o.leaving
		o.leaving.Lock()
	}
	err := o.db.Update(func(tx *bolt.Tx) error {
		dropped = dropped[:0]
		meta, queue := tx.Bucket(bucketMeta), tx.Bucket(bucketQueue)
		seq = getU64(meta, keySeq)
		rows, bytes = int64(getU64(meta, keyRows)), int64(getU64(meta, keyBytes))
		rows0, bytes0 = rows, bytes
		for i, req := range group {
			res[i] = appendRes{}
			if !o.fits(rows, bytes, req) {
				d, ok, err := o.makeRoom(tx, rows, bytes, req)
				if err != nil {
					return err
				}
				dropped = append(dropped, d...)
				for _, r := range d {
					rows, bytes = rows-1, bytes-int64(r.size)
				}
				if !ok {
					res[i].err = o.fullErr()
					continue
				}
			}
			b, err := queue.CreateBucketIfNotExists([]byte(req.table))
			if err != nil {
				return err
			}
			ids := make([]string, len(req.rows))
			for j, row := range req.rows {
				seq++
				ids[j] = rowID(o.prefix, seq)
				val := encodeRecord(ids[j], req.appended, req.trace, row)
				if err := b.Put(u64(seq), val); err != nil {
					return err
				}
				rows, bytes = rows+1, bytes+int64(8+len(val))
			}
			res[i].ids = ids
		}
		if err := meta.Put(keySeq, u64(seq)); err != nil {
			return err
		}
		if err := meta.Put(keyRows, u64(uint64(rows))); err != nil {
			return err
		}
		return meta.Put(keyBytes, u64(uint64(bytes)))
	})
	if err != nil {
		for i := range res {
			res[i] = appendRes{err: diskErr(err)}
		}
	} else {
		o.mu.Lock()
		o.lastSeq = max(o.lastSeq, seq)
		o.pending += rows - rows0 // changes, not values: other transactions may have committed since
		o.pendingBytes += bytes - bytes0
		o.counts.dropped += uint64(len(dropped))
		o.mu.Unlock()
		o.depthChanged()
		if len(dropped) > 0 {
			o.undelivered(dropped, false)
		}
	}
	if o.set.policy == DropOldest {
		o.leaving.Unlock()
	}
	if err == nil {
		if len(dropped) > 0 {
			o.log.Warn("outbox: dropped the oldest rows to make room", "rows", len(dropped), "policy", DropOldest)
			o.checkWaiters()
		}
		select {
		case o.work <- struct{}{}:
		default:
		}
	}
	for i, req := range group {
		req.done <- res[i]
	}
}

// fits reports whether req fits beside rows and bytes pending.
func (o *Outbox) fits(rows, bytes int64, req *appendReq) bool {
	return (o.set.maxRows == 0 || rows+int64(len(req.rows)) <= o.set.maxRows) &&
		(o.set.maxBytes == 0 || bytes+req.size <= o.set.maxBytes)
}

// fullErr is the answer to an append that does not fit: ErrFull under
// Fail, a wait for room otherwise.
func (o *Outbox) fullErr() error {
	if o.set.policy == Fail {
		return reason(ErrFull, "the limit of %s is reached", o.set.limits())
	}
	return errNoRoom
}

// makeRoom deletes the oldest pending rows until req fits, under the
// DropOldest policy, and returns them. A row of a batch the sender is
// sending may be among them: it may still be stored, and counts as
// dropped.
func (o *Outbox) makeRoom(tx *bolt.Tx, rows, bytes int64, req *appendReq) ([]record, bool, error) {
	if o.set.policy != DropOldest {
		return nil, false, nil
	}
	var victims []record
	for !o.fits(rows, bytes, req) {
		r, b := oldest(tx)
		if b == nil {
			return victims, false, nil
		}
		if err := b.Delete(u64(r.seq)); err != nil {
			return nil, false, err
		}
		victims = append(victims, r)
		rows, bytes = rows-1, bytes-int64(r.size)
	}
	return victims, true, nil
}

// oldest finds the pending row with the lowest sequence, and its table's
// bucket; nil when nothing is pending.
func oldest(tx *bolt.Tx) (record, *bolt.Bucket) {
	var best record
	var bucket *bolt.Bucket
	_ = forTables(tx, func(_ string, b *bolt.Bucket) error {
		k, v := b.Cursor().First()
		if k == nil {
			return nil
		}
		if s := binary.BigEndian.Uint64(k); bucket == nil || s < best.seq {
			r, err := decodeRecord(k, v)
			if err != nil {
				r = record{seq: s, size: len(k) + len(v)}
			}
			best, bucket = r, b
		}
		return nil
	})
	return best, bucket
}
