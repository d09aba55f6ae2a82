// This file holds what the data backend drops without a word to the
// writer, made visible: a key of a written row that no column of the table
// reads (the platform stores the row without it), and a published row
// without tsp (the platform drops the row; a call gets an error instead).
// The platform's behaviour stays; the backend logs a warning (once per
// app, table and key; every dropped row), counts the drops per realm and
// table for the console, and hands each to Config.Dropped. It serves no
// URI.

package fleetdb

import (
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Drop is one row that lost something on its way into a table.
type Drop struct {
	Realm string
	App   int // the app's key
	Table string
	// Key is the row's key no column reads; "" for a row dropped for its
	// missing tsp.
	Key string
	// Call is the URI the row came on: append.<S>.<A>.<t>,
	// appendBulk.<S>.<A>.<t>, or the topic of a publication.
	Call string
	// AuthID is the writer's authid (its device serial), when known.
	AuthID string
	// Rows is how many rows lost Key (1), or were dropped with a row
	// without tsp (a bulk publication is dropped whole).
	Rows int64
	// First is set on the first drop of Key (or of a row without tsp) in
	// Table of App since the platform started.
	First bool
}

// DropCount counts the rows that lost one key (or, Key "", the rows
// dropped with a row without tsp) in a table of a realm.
type DropCount struct {
	Key      string
	Rows     int64
	LastCall string
	Last     time.Time // platform time
}

// dropLog keeps the counts per realm, table and key, and which app, table
// and key were warned about. Its zero value is ready.
type dropLog struct {
	mu     sync.Mutex
	counts map[string]map[string]map[string]*DropCount // realm → table → key
	warned map[dropKey]bool
}

type dropKey struct {
	app        int
	table, key string
}

// note counts a drop and reports whether it is the first of its app,
// table and key.
func (l *dropLog) note(d Drop, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.counts == nil {
		l.counts, l.warned = map[string]map[string]map[string]*DropCount{}, map[dropKey]bool{}
	}
	tables := l.counts[d.Realm]
	if tables == nil {
		tables = map[string]map[string]*DropCount{}
		l.counts[d.Realm] = tables
	}
	keys := tables[d.Table]
	if keys == nil {
		keys = map[string]*DropCount{}
		tables[d.Table] = keys
	}
	c := keys[d.Key]
	if c == nil {
		c = &DropCount{Key: d.Key}
		keys[d.Key] = c
	}
	c.Rows += d.Rows
	c.LastCall, c.Last = d.Call, now
	k := dropKey{d.App, d.Table, d.Key}
	first := !l.warned[k]
	l.warned[k] = true
	return first
}

// Dropped returns the drops counted in a table of realm, by key (rows
// dropped for a missing tsp under ""); nil when there were none.
func (db *DB) Dropped(realm, table string) []DropCount {
	db.drops.mu.Lock()
	defer db.drops.mu.Unlock()
	keys := db.drops.counts[realm][table]
	out := make([]DropCount, 0, len(keys))
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		out = append(out, *keys[k])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// unknownKeys returns the keys of a written row (args[0] of the message,
// a map) that no column of t reads and the backend does not read either
// (DEVICE_KEY), sorted.
func (t *table) unknownKeys(msg writeMsg) []string {
	if len(msg.args) == 0 {
		return nil
	}
	row, ok := msg.args[0].(map[string]any)
	if !ok {
		return nil
	}
	var out []string
	for k := range row {
		if k != wire.KwDeviceKey && !t.readsArg0Key(k) {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}

// readsArg0Key reports whether a column reads key k of args[0] (or all of
// args[0]).
func (t *table) readsArg0Key(k string) bool {
	for i := range t.cols {
		p := t.cols[i].path
		if len(p) >= 2 && p[0] == "args" && p[1] == "0" && (len(p) == 2 || p[2] == k) {
			return true
		}
	}
	return false
}

// drop describes a drop of key (a missing tsp: "") in a row of msg.
func (b *backend) drop(t *table, msg writeMsg, key string) Drop {
	d := Drop{Realm: b.realm.Name, App: b.realm.App, Table: t.name, Key: key, Call: msg.topic, Rows: 1}
	d.AuthID, _ = authIDOf(msg.details).(string)
	return d
}

// reportMissingTsp reports a publication dropped for a row without tsp:
// the whole batch of a bulk publication.
func (b *backend) reportMissingTsp(h *realm.Host, t *table, msg writeMsg, bulk bool) {
	if b.dropped == nil {
		return
	}
	d := b.drop(t, msg, "")
	if bulk && len(msg.args) > 0 {
		batch, _ := msg.args[0].([]any)
		d.Rows = int64(len(batch))
	}
	b.dropped(h, []Drop{d})
}

// reportDrops counts and logs the drops of one write and hands them to
// the Dropped hook.
func (db *DB) reportDrops(h *realm.Host, drops []Drop) {
	for _, d := range drops {
		d.First = db.drops.note(d, h.Clock.Now())
		switch {
		case d.Key == "":
			h.Log.Warn("fleetdb: a published row has no tsp; the platform dropped the publication",
				"realm", d.Realm, "table", d.Table, "topic", d.Call, "rows", d.Rows, "authid", d.AuthID)
		case d.First:
			h.Log.Warn("fleetdb: a row carries a key no column of the table reads; the platform stores the row without it "+
				"(warned once per app, table and key; the console counts them)",
				"realm", d.Realm, "app", d.App, "table", d.Table, "key", d.Key, "call", d.Call, "authid", d.AuthID)
		}
		if db.cfg.Dropped != nil {
			db.cfg.Dropped(d)
		}
	}
}
