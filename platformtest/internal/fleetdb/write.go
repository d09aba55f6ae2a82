// This file holds the write path of the data backend (docs/wire.md §7.3, docs/fake.md §3,
// package template). It serves, for every declared table and error-logs:
//
//	append.<S>.<A>.<t>       CALL,    args [row, …]   → {"success": true}
//	appendBulk.<S>.<A>.<t>   CALL,    args [[row, …]] → {"success": true, "count": n}
//	<S>.<A>.<t>              PUBLISH, args [row, …]   (refusals dropped)
//	bulk.<S>.<A>.<t>         PUBLISH, args [[row, …]] (refusals dropped)
//
// Each column is read at its path over {args, kwargs, details} (lodash
// style; for a bulk row args[0] is the row), typed for storage, device_key
// is Number(kwargs.DEVICE_KEY ?? args[0].DEVICE_KEY) (-1 when NaN) and
// authid the publisher's or caller's authid (the device serial). Refusals
// in the order checked: storage refused (storage_full /
// storage_overusage), a bulk payload that is not a non-empty list
// (runtime_error [{}]), per row a missing tsp (runtime_error [{}]), an
// already-encrypted secret (secret_ciphertext_rejected), a Postgres type
// error (runtime_error [{name, severity, code}]), a secret placeholder
// without a complete entity key (secret_sentinel_unresolvable), then an
// entity key + tsp stored twice (entity_key_conflict). A batch is all or
// nothing. A published row without tsp also leaves an error-logs row with
// source "system". A secret value is stored encrypted (crypt.go); a kept
// one is the entity's stored ciphertext, carried over as it is. The rows
// are checked and typed here and stored by the store (store.go), which
// applies the entity rules (merge, conflict) and answers only once they
// are stored; a store's failure is answered as storeError says, never as
// success. The feed is published after the store answered, so it follows
// the order in which appends were stored only for writes that do not
// overlap (one publisher's publications are handled one at a time).
//
// Keys of a stored row that no column reads, and published rows dropped
// for their missing tsp, are reported (drops.go); every refused write is
// reported on databackend.errors.<t> (dataerrors.go).
//
// Choices where the documents are silent: the secret placeholder on an
// entity that has no stored row yet stores NULL; rows whose entity key has
// a NULL are neither merged nor checked for conflicts (NULLs are distinct
// in a unique constraint); a non-integral device_key is truncated.

package fleetdb

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/gammazero/nexus/v3/client"
	"github.com/gammazero/nexus/v3/wamp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/internal/wirevalue"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// writeMsg is an inbound write: a publication or a call.
type writeMsg struct {
	args    []any
	kwargs  map[string]any
	details map[string]any
	topic   string // the URI it came on, for the error-logs message and drops
	// trace is the context of the store continuing the caller's trace
	// (docs/wire.md §13); the zero value: the call carried none.
	trace realm.Trace
}

// pending is a row checked and typed, not yet stored.
type pending struct {
	NewRow         // vals and the columns to carry from the entity's stored row
	present []bool // the message carried the column (possibly null)
}

func (b *backend) serveAppend(ctx context.Context, h *realm.Host, t *table, inv *wamp.Invocation, bulk bool) client.InvokeResult {
	proc := t.appendProc
	if bulk {
		proc = t.appendBulkProc
	}
	// The invocation is this handler's alone (the router hands a call's
	// decoded payload to its one callee, and nothing reads it after), so
	// its values are normalised where they are rather than copied, as a
	// publication's, which every subscriber shares, must be.
	msg := writeMsg{args: wirevalue.List(inv.Arguments, false), kwargs: wirevalue.Dict(inv.ArgumentsKw, false), details: wirevalue.Dict(inv.Details, false), topic: proc}
	if tr := realm.TraceOf(inv.Arguments); tr != nil {
		msg.trace, _ = tr.Child()
	}
	n, err := b.write(ctx, h, t, msg, bulk)
	if err != nil {
		logStoreFailure(h, "append", t.name, err)
		b.reportRefusal(h, t, msg, writeOp(false, bulk), bulk, err) // dataerrors.go
		return err.result()
	}
	if !bulk {
		return client.InvokeResult{Args: appended}
	}
	return client.InvokeResult{Args: wamp.List{map[string]any{"success": true, "count": int64(n)}}}
}

// appended is the answer to every append: one list for all, which nothing
// writes (the router only encodes a RESULT's arguments).
var appended = wamp.List{map[string]any{"success": true}}

func (b *backend) servePublish(h *realm.Host, t *table, ev *wamp.Event, bulk bool, topic string) {
	msg := writeMsg{args: wirevalue.CloneList(ev.Arguments), kwargs: wirevalue.CloneDict(ev.ArgumentsKw), details: wirevalue.CloneDict(ev.Details), topic: topic,
		trace: publicationTrace(ev)} // trace.go
	ctx := context.Background() // a publication has no caller to cancel it
	if _, err := b.write(ctx, h, t, msg, bulk); err != nil {
		b.reportRefusal(h, t, msg, writeOp(true, bulk), bulk, err) // dataerrors.go
		if err.missingTsp {
			b.reportMissingTsp(h, t, msg, bulk)
			b.logDropped(ctx, h, t, msg)
			return
		}
		h.Log.Warn("fleetdb: a publication was refused and dropped", "realm", h.Realm.Name, "topic", topic, "err", describe(err))
	}
}

// write stores the rows of one message and publishes them on the feed.
func (b *backend) write(ctx context.Context, h *realm.Host, t *table, msg writeMsg, bulk bool) (int, *fleetError) {
	if b.refused != nil {
		if e := b.refused(); e != nil {
			return 0, e // storage refused (refuse.go)
		}
	}
	var ps []*pending
	var drops []Drop
	if bulk {
		var batch []any
		if len(msg.args) > 0 {
			batch, _ = msg.args[0].([]any)
		}
		if len(batch) == 0 {
			return 0, runtimeEmpty()
		}
		for _, r := range batch {
			args := append([]any{r}, msg.args[1:]...)
			rm := writeMsg{args: args, kwargs: msg.kwargs, details: msg.details, topic: msg.topic}
			p, err := t.prepare(rm)
			if err != nil {
				return 0, err
			}
			ps = append(ps, p)
			for _, k := range t.unknownKeys(rm) {
				drops = append(drops, b.drop(t, rm, k))
			}
		}
	} else {
		p, err := t.prepare(msg)
		if err != nil {
			return 0, err
		}
		ps = []*pending{p}
		for _, k := range t.unknownKeys(msg) {
			drops = append(drops, b.drop(t, msg, k))
		}
	}
	if err := b.commit(ctx, t, ps); err != nil {
		return 0, err
	}
	if len(drops) > 0 && b.dropped != nil {
		b.dropped(h, drops) // before the feed: a subscriber's event follows the report
	}
	if msg.trace.Parent != "" {
		h.Log.Debug("fleetdb: rows stored", "realm", h.Realm.Name, "table", t.name, "rows", len(ps), "traceparent", msg.trace.Parent)
	}
	t.publishFeed(h, ps, bulk, msg.trace)
	return len(ps), nil
}

// lookup reads a column's path from the object {args, kwargs, details}
// of the message (an absent args is an empty list).
func (m writeMsg) lookup(keys []string) (any, bool) {
	if len(keys) == 0 {
		return nil, false // the object itself is never a column's value
	}
	var v any
	switch keys[0] {
	case "args":
		if len(keys) > 1 { // the usual args[0]…: no list boxed in an interface
			e, ok := listIndex(m.args, keys[1])
			if !ok {
				return nil, false
			}
			return lookup(e, keys[2:])
		}
		if m.args == nil {
			return []any{}, true
		}
		return m.args, true
	case "kwargs":
		v = m.kwargs
	case "details":
		v = m.details
	default:
		return nil, false
	}
	return lookup(v, keys[1:])
}

// lookup follows lodash-style keys; found is false for undefined.
func lookup(v any, keys []string) (any, bool) {
	for _, k := range keys {
		switch x := v.(type) {
		case map[string]any:
			e, ok := x[k]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			e, ok := listIndex(x, k)
			if !ok {
				return nil, false
			}
			v = e
		default:
			return nil, false
		}
	}
	return v, true
}

// listIndex returns element k of l, k a decimal index without sign or
// leading zero; false when there is none.
func listIndex(l []any, k string) (any, bool) {
	n, err := strconv.Atoi(k)
	if err != nil || n < 0 || n >= len(l) || strconv.Itoa(n) != k {
		return nil, false
	}
	return l[n], true
}

// prepare reads, checks and types one row of a message.
func (t *table) prepare(msg writeMsg) (*pending, *fleetError) {
	raw := make([]any, len(t.cols))
	present := make([]bool, len(t.cols))
	for i := range t.cols {
		if !t.cols[i].implicit {
			raw[i], present[i] = msg.lookup(t.cols[i].path)
		}
	}
	return t.typed(raw, present, deviceKeyOf(msg), authIDOf(msg.details))
}

// typed checks and types the raw values of a row (present[i]: column i
// has a value, possibly null) and adds device_key and authid.
func (t *table) typed(raw []any, present []bool, devKey int64, authID any) (*pending, *fleetError) {
	if !present[t.tsp] || raw[t.tsp] == nil {
		err := runtimeEmpty()
		err.missingTsp = true
		return nil, err
	}
	p := &pending{NewRow: NewRow{Vals: make([]any, len(t.cols)), Carry: make([]bool, len(t.cols))}, present: present}
	kept := ""
	for i := range t.cols {
		c := &t.cols[i]
		if !present[i] || c.implicit {
			p.Carry[i] = !present[i]
			continue
		}
		if s, ok := raw[i].(string); ok && c.secret {
			switch {
			case s == secretPlaceholder || s == secretUIMask:
				p.Carry[i], kept = true, c.id
				continue
			case strings.HasPrefix(s, secretCipherPrefix):
				return nil, dataRefusal(errSecretCipher, "column %q: the value is already encrypted (%s…); write the plaintext", c.id, secretCipherPrefix)
			}
		}
		v, code := store.StoreValue(c.typ, raw[i])
		if code != "" {
			return nil, pgError(code)
		}
		if s, ok := v.(string); ok && c.secret {
			v = t.seal.seal(s) // encrypted at rest (crypt.go)
		}
		p.Vals[i] = v
	}
	p.Vals[t.devKey] = devKey
	p.Vals[t.authID] = authID
	if kept != "" {
		if !t.entityComplete(p.Vals) {
			return nil, dataRefusal(errSecretSentinel, "column %q: %q keeps the stored secret only on a table with an entity key (maintainLatestFlagFor) present in the row", kept, secretPlaceholder)
		}
	}
	return p, nil
}

// deviceKeyOf is Number(kwargs.DEVICE_KEY ?? args[0].DEVICE_KEY), -1 when
// NaN.
func deviceKeyOf(msg writeMsg) int64 {
	v, ok := msg.kwargs[wire.KwDeviceKey]
	if !ok || v == nil {
		ok = false
		if len(msg.args) > 0 {
			v, ok = lookup(msg.args[0], []string{wire.KwDeviceKey})
		}
	}
	if !ok {
		return -1
	}
	f := store.JSNumber(v)
	if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 9.2e18 {
		return -1
	}
	return int64(f)
}

// authIDOf is publisher_authid ?? caller_authid.
func authIDOf(details map[string]any) any {
	for _, k := range []string{"publisher_authid", "caller_authid"} {
		if s, ok := details[k].(string); ok {
			return s
		}
	}
	return nil
}

// commit stores prepared rows, all or none: a column the message did not
// carry, or a kept secret, takes the entity's stored value (the store
// merges).
func (b *backend) commit(ctx context.Context, t *table, ps []*pending) *fleetError {
	rows := make([]*NewRow, len(ps))
	for i, p := range ps {
		rows[i] = &p.NewRow
	}
	if err := b.store.Append(ctx, t.name, rows); err != nil {
		return storeError(t.name, err)
	}
	return nil
}

// feedRow is a row as the feed publishes it: only the columns the message
// carried (plus device_key and authid), or the whole row after a merge.
func (t *table) feedRow(vals []any, present []bool, full bool) map[string]any {
	if full {
		return t.outRow(vals, t.allCols())
	}
	cols := []int{t.devKey, t.authID}
	for i, ok := range present {
		if ok {
			cols = append(cols, i)
		}
	}
	return t.outRow(vals, cols)
}

// logDropped records a published row without tsp in error-logs, with
// source "system", and publishes it on transformed.error-logs.
func (b *backend) logDropped(ctx context.Context, h *realm.Host, t *table, msg writeMsg) {
	el := b.table(wire.ErrorLogsTable)
	text := fmt.Sprintf("row dropped: table %q has no tsp value in the publication on %s", t.name, msg.topic)
	vals := make([]any, len(el.cols))
	present := make([]bool, len(el.cols))
	for id, v := range map[string]any{"tsp": h.Clock.Now().UnixMilli(), "msg": text, "user_message": text, "source": "system", "level": "error"} {
		vals[el.byID[id]], present[el.byID[id]] = v, true
	}
	vals[el.devKey] = deviceKeyOf(msg)
	vals[el.authID] = authIDOf(msg.details)
	p := &pending{NewRow: NewRow{Vals: vals}, present: present}
	if err := b.commit(ctx, el, []*pending{p}); err != nil {
		logStoreFailure(h, "error-logs", el.name, err)
		return
	}
	el.publishFeed(h, []*pending{p}, false, realm.Trace{})
}

// serveWrites registers the write procedures and subscriptions of a table.
func (b *backend) serveWrites(h *realm.Host, t *table) error {
	s, a := h.Realm.Swarm, h.Realm.App
	err := h.Register(wire.AppendProc(s, a, t.name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
		return b.serveAppend(ctx, h, t, inv, false)
	}, nil)
	if err != nil {
		return err
	}
	err = h.Register(wire.AppendBulkProc(s, a, t.name), func(ctx context.Context, inv *wamp.Invocation) client.InvokeResult {
		return b.serveAppend(ctx, h, t, inv, true)
	}, nil)
	if err != nil {
		return err
	}
	topic, bulkTopic := wire.TableTopic(s, a, t.name), wire.BulkTableTopic(s, a, t.name)
	if err := h.Subscribe(topic, func(ev *wamp.Event) { b.servePublish(h, t, ev, false, topic) }, nil); err != nil {
		return err
	}
	return h.Subscribe(bulkTopic, func(ev *wamp.Event) { b.servePublish(h, t, ev, true, bulkTopic) }, nil)
}
