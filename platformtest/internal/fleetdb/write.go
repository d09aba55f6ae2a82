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
// one is the entity's stored ciphertext, carried over as it is.
//
// Keys of a stored row that no column reads, and published rows dropped
// for their missing tsp, are reported (drops.go).
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
)

// writeMsg is an inbound write: a publication or a call.
type writeMsg struct {
	args    []any
	kwargs  map[string]any
	details map[string]any
	topic   string // the URI it came on, for the error-logs message and drops
}

// pending is a row checked and typed, not yet stored.
type pending struct {
	vals    []any
	present []bool // the message carried the column (possibly null)
	keep    []bool // secret placeholder: keep the stored value
}

func (b *backend) serveAppend(h *realm.Host, t *table, inv *wamp.Invocation, bulk bool) client.InvokeResult {
	proc := wire.AppendProc(h.Realm.Swarm, h.Realm.App, t.name)
	if bulk {
		proc = wire.AppendBulkProc(h.Realm.Swarm, h.Realm.App, t.name)
	}
	msg := writeMsg{args: wirevalue.CloneList(inv.Arguments), kwargs: wirevalue.CloneDict(inv.ArgumentsKw), details: wirevalue.CloneDict(inv.Details), topic: proc}
	n, err := b.write(h, t, msg, bulk)
	if err != nil {
		return err.result()
	}
	res := map[string]any{"success": true}
	if bulk {
		res["count"] = int64(n)
	}
	return client.InvokeResult{Args: wamp.List{res}}
}

func (b *backend) servePublish(h *realm.Host, t *table, ev *wamp.Event, bulk bool, topic string) {
	msg := writeMsg{args: wirevalue.CloneList(ev.Arguments), kwargs: wirevalue.CloneDict(ev.ArgumentsKw), details: wirevalue.CloneDict(ev.Details), topic: topic}
	if _, err := b.write(h, t, msg, bulk); err != nil {
		if err.missingTsp {
			b.reportMissingTsp(h, t, msg, bulk)
			b.logDropped(h, t, msg)
			return
		}
		h.Log.Warn("fleetdb: a publication was refused and dropped", "realm", h.Realm.Name, "topic", topic, "err", describe(err))
	}
}

// write stores the rows of one message and publishes them on the feed.
func (b *backend) write(h *realm.Host, t *table, msg writeMsg, bulk bool) (int, *fleetError) {
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
	b.mu.Lock()
	defer b.mu.Unlock()
	rows, full, err := b.commit(t, ps)
	if err != nil {
		return 0, err
	}
	if len(drops) > 0 && b.dropped != nil {
		b.dropped(h, drops) // before the feed: a subscriber's event follows the report
	}
	feed := make([]map[string]any, len(rows))
	for i, r := range rows {
		feed[i] = t.feedRow(r, ps[i].present, full[i])
	}
	publishFeed(h, t.name, t.private || t.system, feed, bulk)
	return len(rows), nil
}

// root is the object column paths are read from.
func (m writeMsg) root() map[string]any {
	args := m.args
	if args == nil {
		args = []any{}
	}
	return map[string]any{"args": args, "kwargs": m.kwargs, "details": m.details}
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
			n, err := strconv.Atoi(k)
			if err != nil || n < 0 || n >= len(x) || strconv.Itoa(n) != k {
				return nil, false
			}
			v = x[n]
		default:
			return nil, false
		}
	}
	return v, true
}

// prepare reads, checks and types one row of a message.
func (t *table) prepare(msg writeMsg) (*pending, *fleetError) {
	root := msg.root()
	raw := make([]any, len(t.cols))
	present := make([]bool, len(t.cols))
	for i := range t.cols {
		if !t.cols[i].implicit {
			raw[i], present[i] = lookup(root, t.cols[i].path)
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
	p := &pending{vals: make([]any, len(t.cols)), present: present, keep: make([]bool, len(t.cols))}
	kept := ""
	for i := range t.cols {
		c := &t.cols[i]
		if !present[i] || c.implicit {
			continue
		}
		if s, ok := raw[i].(string); ok && c.secret {
			switch {
			case s == secretPlaceholder || s == secretUIMask:
				p.keep[i], kept = true, c.id
				continue
			case strings.HasPrefix(s, secretCipherPrefix):
				return nil, dataRefusal(errSecretCipher, "column %q: the value is already encrypted (%s…); write the plaintext", c.id, secretCipherPrefix)
			}
		}
		v, code := storeValue(c.typ, raw[i])
		if code != "" {
			return nil, pgError(code)
		}
		if s, ok := v.(string); ok && c.secret {
			v = t.seal.seal(s) // encrypted at rest (crypt.go)
		}
		p.vals[i] = v
	}
	p.vals[t.devKey] = devKey
	p.vals[t.authID] = authID
	if kept != "" {
		if _, complete := t.entityKey(p.vals); len(t.entity) == 0 || !complete {
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
	f := jsNumber(v)
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

// commit merges, checks and stores prepared rows, all or none. full[i]
// tells that row i took values from its entity's previous row. Caller
// holds b.mu.
func (b *backend) commit(t *table, ps []*pending) (rows []*row, full []bool, err *fleetError) {
	var staged map[string]*row
	var stagedUniq map[string]bool
	if t.latest != nil {
		staged, stagedUniq = map[string]*row{}, map[string]bool{}
	}
	rows = make([]*row, len(ps))
	full = make([]bool, len(ps))
	for i, p := range ps {
		r := &row{tsp: p.vals[t.tsp].(int64), vals: p.vals}
		if t.latest != nil {
			key, complete := t.entityKey(p.vals)
			if complete {
				prev := t.latest[key]
				if s := staged[key]; s != nil && (prev == nil || s.after(prev)) {
					prev = s
				}
				for j := range t.cols {
					c := &t.cols[j]
					if c.implicit || j == t.tsp || (p.present[j] && !p.keep[j]) {
						continue
					}
					if prev != nil {
						r.vals[j] = prev.vals[j]
						full[i] = true
					}
				}
				u := uniqKey(key, r.tsp)
				if t.uniq[u] || stagedUniq[u] {
					return nil, nil, dataRefusal(errEntityConflict, "table %q: a row with this entity key and tsp exists", t.name)
				}
				stagedUniq[u] = true
				r.seq = b.seq + int64(i) + 1 // the sequence it is stored with
				if cur := staged[key]; cur == nil || r.after(cur) {
					staged[key] = r
				}
			}
		}
		rows[i] = r
	}
	for _, r := range rows {
		r.seq = b.nextSeq()
		if t.id >= 0 {
			r.vals[t.id] = t.nextID
			t.nextID++
		}
	}
	t.add(rows)
	return rows, full, nil
}

// feedRow is a row as the feed publishes it: only the columns the message
// carried (plus device_key and authid), or the whole row after a merge.
func (t *table) feedRow(r *row, present []bool, full bool) map[string]any {
	if full {
		return t.outRow(r, t.allCols())
	}
	cols := []int{t.devKey, t.authID}
	for i, ok := range present {
		if ok {
			cols = append(cols, i)
		}
	}
	return t.outRow(r, cols)
}

// logDropped records a published row without tsp in error-logs, with
// source "system", and publishes it on transformed.error-logs.
func (b *backend) logDropped(h *realm.Host, t *table, msg writeMsg) {
	el := b.table(wire.ErrorLogsTable)
	text := fmt.Sprintf("row dropped: table %q has no tsp value in the publication on %s", t.name, msg.topic)
	vals := make([]any, len(el.cols))
	present := make([]bool, len(el.cols))
	for id, v := range map[string]any{"tsp": h.Clock.Now().UnixMilli(), "msg": text, "user_message": text, "source": "system", "level": "error"} {
		vals[el.byID[id]], present[el.byID[id]] = v, true
	}
	vals[el.devKey] = deviceKeyOf(msg)
	vals[el.authID] = authIDOf(msg.details)
	b.mu.Lock()
	defer b.mu.Unlock()
	rows, _, err := b.commit(el, []*pending{{vals: vals, present: present, keep: make([]bool, len(vals))}})
	if err != nil {
		return
	}
	publishFeed(h, el.name, true, []map[string]any{el.feedRow(rows[0], present, false)}, false)
}

// serveWrites registers the write procedures and subscriptions of a table.
func (b *backend) serveWrites(h *realm.Host, t *table) error {
	s, a := h.Realm.Swarm, h.Realm.App
	err := h.Register(wire.AppendProc(s, a, t.name), func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return b.serveAppend(h, t, inv, false)
	}, nil)
	if err != nil {
		return err
	}
	err = h.Register(wire.AppendBulkProc(s, a, t.name), func(_ context.Context, inv *wamp.Invocation) client.InvokeResult {
		return b.serveAppend(h, t, inv, true)
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
