// This file holds the data backend of one realm as the service sees it:
// created from the app's data template and kept in the DB (so it survives
// Restart and withheld realms), its tables and transforms with their
// columns (where a write reads each value, how it is typed), their chunk
// budgets, and the realm's storage (a store's Tables, store.go), which
// holds the rows. It serves no URI.

package fleetdb

import (
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// defaultChunkBytes is the chunk budget of a read: 8 MiB of estimated JSON.
const defaultChunkBytes = 8 << 20

// backend is the data backend of one realm.
type backend struct {
	realm  realm.Info
	store  Tables // the realm's rows (store.go)
	mu     sync.Mutex
	host   *realm.Host // the realm's current Host (Attach); nil before the first; guarded by mu
	tables map[string]*table
	views  map[string]*view
	limits rateLimits // reveal and verify calls per caller (ratelimit.go)
	sched  *scheduler // the timed work (schedule.go)
	// keepsAll: the store applies no retention (Maintain answered
	// ErrNotSupported); set before the schedules start.
	keepsAll bool

	// dropped reports what writes lost (drops.go); set when the backend
	// is made, never changed.
	dropped func(*realm.Host, []Drop)
	// refused returns the refusal of every write (refuse.go), nil while
	// writes are accepted; set when the backend is made, never changed.
	refused func() *fleetError
}

// column is a column of a table or transform.
type column struct {
	id       string
	typ      template.DataType
	secret   bool
	path     []string // where a write reads it; nil for implicit columns
	implicit bool
}

// table is a declared table or the system table error-logs.
type table struct {
	name       string
	private    bool
	system     bool // error-logs
	cols       []column
	byID       map[string]int
	tsp        int // index of tsp
	devKey     int // index of device_key
	authID     int // index of authid
	id         int // index of id (error-logs), -1 otherwise
	entity     []int
	chunkBytes atomic.Int64
	seal       *sealer // encrypts the values of secret columns (crypt.go)
	schema     *TableSchema
	// appendProc and appendBulkProc are the table's write procedures
	// (the topic of its error-logs rows and drop reports).
	appendProc, appendBulkProc string
	// feedTopic and bulkFeedTopic are its feeds (feed.go).
	feedTopic, bulkFeedTopic string
}

// view is a transform; the store holds its rows.
type view struct {
	name       string
	private    bool
	cols       []column
	byID       map[string]int
	chunkBytes atomic.Int64
	schema     *TransformSchema
}

// newBackend returns the backend of a realm with the schema of its data
// template (store.NewSchema); Open makes its storage.
func newBackend(ri realm.Info, tpl *template.DataTemplate, seal *sealer) (*backend, *Schema) {
	b := &backend{realm: ri, tables: map[string]*table{}, views: map[string]*view{}}
	s := store.NewSchema(ri.Name, tpl)
	for _, vs := range s.Transforms {
		v := &view{name: vs.Name, private: vs.Private, byID: map[string]int{}, schema: vs}
		v.chunkBytes.Store(defaultChunkBytes)
		for _, c := range vs.Columns {
			v.byID[c.ID] = len(v.cols)
			v.cols = append(v.cols, column{id: c.ID, typ: c.Type, secret: c.Secret})
		}
		b.views[v.name] = v
	}
	for _, ts := range s.Tables {
		t := &table{name: ts.Name, private: ts.Private, system: ts.System, byID: map[string]int{}, id: ts.ID,
			tsp: ts.TSP, devKey: ts.DeviceKey, authID: ts.AuthID, entity: ts.EntityKey, seal: seal, schema: ts,
			appendProc: wire.AppendProc(ri.Swarm, ri.App, ts.Name), appendBulkProc: wire.AppendBulkProc(ri.Swarm, ri.App, ts.Name),
			feedTopic: wire.TransformedTopic(ts.Name), bulkFeedTopic: wire.TransformedBulkTopic(ts.Name)}
		t.chunkBytes.Store(defaultChunkBytes)
		for i, c := range ts.Columns {
			var path []string
			if !c.Implicit {
				path, _ = template.PathKeys(ts.Def.Columns[i].Path)
			}
			t.byID[c.ID] = len(t.cols)
			t.cols = append(t.cols, column{id: c.ID, typ: c.Type, secret: c.Secret, path: path, implicit: c.Implicit})
		}
		b.tables[t.name] = t
	}
	return b, s
}

// table returns a declared table or error-logs; nil when unknown.
func (b *backend) table(name string) *table { return b.tables[name] }

// currentHost returns the realm's current Host; nil before the first.
func (b *backend) currentHost() *realm.Host {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.host
}

// tableNames returns the table names, sorted.
func (b *backend) tableNames() []string { return slices.Sorted(maps.Keys(b.tables)) }

// viewNames returns the transform names, sorted.
func (b *backend) viewNames() []string { return slices.Sorted(maps.Keys(b.views)) }

// entityComplete reports a table with an entity key whose values in vals
// hold no NULL.
func (t *table) entityComplete(vals []any) bool {
	for _, i := range t.entity {
		if vals[i] == nil {
			return false
		}
	}
	return len(t.entity) > 0
}

// outRow builds a read or feed row from the columns cols of a stored row,
// typed and with secrets masked.
func (t *table) outRow(vals []any, cols []int) map[string]any {
	m := make(map[string]any, len(cols))
	for _, i := range cols {
		c := &t.cols[i]
		m[c.id] = outValue(c.typ, c.secret, vals[i])
	}
	return m
}

// allCols returns the indexes of every column: SELECT *.
func (t *table) allCols() []int {
	cols := make([]int, len(t.cols))
	for i := range cols {
		cols[i] = i
	}
	return cols
}
