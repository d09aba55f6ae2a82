// This file holds the storage of the fake data backend: one backend per
// realm, created from the app's data template and kept in the DB (so rows
// survive Restart and withheld realms), its tables with their rows
// ordered by (tsp, insertion sequence), the latest row per entity as an
// index, the entity-key uniqueness index, and its transforms (views whose
// rows tests supply). It serves no URI.
//
// Costs: appending rows in tsp order is O(1) amortised; a row older than
// the newest is placed by binary search; a batch is sorted and merged;
// time-range bounds are found by binary search; the latest rows per entity
// are read from the index. Reads count the rows they look at (examined),
// so tests can check that a read's cost follows its result, not the
// table's size.

package fleetdb

import (
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// defaultChunkBytes is the chunk budget of a read: 8 MiB of estimated JSON.
const defaultChunkBytes = 8 << 20

// backend is the data backend of one realm.
type backend struct {
	realm    realm.Info
	mu       sync.RWMutex // guards everything below; rows are immutable once stored
	host     *realm.Host  // the realm's current Host (Attach); nil before the first
	tables   map[string]*table
	views    map[string]*view
	seq      int64
	examined atomic.Int64 // rows looked at by reads, for the scaling tests
	limits   rateLimits   // reveal and verify calls per caller (ratelimit.go)

	// dropped reports what writes lost (drops.go); set by Attach.
	dropped func(*realm.Host, []Drop)
}

// column is a column of a table or transform.
type column struct {
	id       string
	typ      template.DataType
	secret   bool
	path     []string // where a write reads it; nil for implicit columns
	implicit bool
}

// row is a stored row; vals holds one value per column of its table.
type row struct {
	seq  int64
	tsp  int64
	vals []any
}

// after reports whether a is newer than b by (tsp, seq).
func (a *row) after(b *row) bool {
	return a.tsp > b.tsp || (a.tsp == b.tsp && a.seq > b.seq)
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
	rows       []*row          // ordered by (tsp, seq)
	latest     map[string]*row // entity key → newest row (entity tables)
	uniq       map[string]bool // entity key + tsp (entity tables)
	nextID     int64
	chunkBytes int
	seal       *sealer // encrypts the values of secret columns (crypt.go)
}

// view is a transform: its rows are supplied, in the view's order.
type view struct {
	name       string
	private    bool
	cols       []column
	byID       map[string]int
	rows       []map[string]any // typed, unmasked
	chunkBytes int
}

func newBackend(ri realm.Info, tpl *template.DataTemplate, seal *sealer) *backend {
	b := &backend{realm: ri, tables: map[string]*table{}, views: map[string]*view{}}
	var defs []template.Table
	if tpl != nil {
		defs = append(defs, tpl.Tables...)
		for i := range tpl.Transforms {
			tr := &tpl.Transforms[i]
			v := &view{name: tr.Name, private: tr.Private, byID: map[string]int{}, chunkBytes: defaultChunkBytes}
			for _, c := range tr.Columns {
				v.byID[c.ID] = len(v.cols)
				v.cols = append(v.cols, column{id: c.ID, typ: c.Type, secret: c.Secret})
			}
			b.views[tr.Name] = v
		}
	}
	defs = append(defs, template.ErrorLogsTable())
	for i := range defs {
		t := newTable(&defs[i])
		t.seal = seal
		b.tables[t.name] = t
	}
	return b
}

func newTable(def *template.Table) *table {
	t := &table{name: def.Name, private: def.Private, system: def.Name == template.ErrorLogsName,
		byID: map[string]int{}, id: -1, chunkBytes: defaultChunkBytes, nextID: 1}
	for _, c := range def.Columns {
		keys, _ := template.PathKeys(c.Path)
		t.byID[c.ID] = len(t.cols)
		t.cols = append(t.cols, column{id: c.ID, typ: c.Type, secret: c.Secret, path: keys})
	}
	for _, c := range def.ImplicitColumns() {
		t.byID[c.ID] = len(t.cols)
		t.cols = append(t.cols, column{id: c.ID, typ: c.Type, implicit: true})
	}
	t.tsp, t.devKey, t.authID = t.byID["tsp"], t.byID["device_key"], t.byID["authid"]
	if i, ok := t.byID["id"]; ok && t.cols[i].implicit {
		t.id = i
	}
	for _, k := range def.EntityKey {
		t.entity = append(t.entity, t.byID[k])
	}
	if len(t.entity) > 0 {
		t.latest, t.uniq = map[string]*row{}, map[string]bool{}
	}
	return t
}

// table returns a declared table or error-logs; nil when unknown.
func (b *backend) table(name string) *table { return b.tables[name] }

// tableNames returns the table names, sorted.
func (b *backend) tableNames() []string {
	names := make([]string, 0, len(b.tables))
	for n := range b.tables {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// viewNames returns the transform names, sorted.
func (b *backend) viewNames() []string {
	names := make([]string, 0, len(b.views))
	for n := range b.views {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// nextSeq returns the next insertion sequence number. Caller holds b.mu.
func (b *backend) nextSeq() int64 {
	b.seq++
	return b.seq
}

// entityKey encodes the entity key of a row's values; complete is false
// when a key value is NULL (such rows never conflict and are not merged).
func (t *table) entityKey(vals []any) (key string, complete bool) {
	var sb strings.Builder
	complete = true
	for _, i := range t.entity {
		sb.WriteString(valueKey(vals[i]))
		sb.WriteByte(0x1f)
		if vals[i] == nil {
			complete = false
		}
	}
	return sb.String(), complete
}

// valueKey encodes a stored value so that equal values give equal keys.
func valueKey(v any) string {
	switch x := v.(type) {
	case nil:
		return "\x00"
	case string:
		return "s" + x
	case int64:
		return "i" + strconv.FormatInt(x, 10)
	case float64:
		if x == math.Trunc(x) && math.Abs(x) < 1e18 {
			return "i" + strconv.FormatInt(int64(x), 10)
		}
		return "f" + strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return "b" + strconv.FormatBool(x)
	}
	return "j" + jsonText(v)
}

// uniqKey is the key of the UNIQUE (entity key, tsp) constraint.
func uniqKey(entity string, tsp int64) string {
	return entity + strconv.FormatInt(tsp, 10)
}

// add stores rows, keeping the order and the indexes. Rows in tsp order
// after the newest are appended; a large unordered batch is sorted and
// merged; a few late rows are placed by binary search. Caller holds b.mu.
func (t *table) add(rs []*row) {
	n := len(t.rows)
	inOrder := n == 0 || !t.rows[n-1].after(rs[0])
	for i := 1; inOrder && i < len(rs); i++ {
		inOrder = !rs[i-1].after(rs[i])
	}
	switch {
	case inOrder:
		t.rows = append(t.rows, rs...)
	case len(rs) > 32:
		sorted := slices.Clone(rs)
		slices.SortStableFunc(sorted, func(a, b *row) int {
			if a.after(b) {
				return 1
			}
			if b.after(a) {
				return -1
			}
			return 0
		})
		merged := make([]*row, 0, n+len(sorted))
		i, j := 0, 0
		for i < n || j < len(sorted) {
			if j == len(sorted) || (i < n && !t.rows[i].after(sorted[j])) {
				merged = append(merged, t.rows[i])
				i++
			} else {
				merged = append(merged, sorted[j])
				j++
			}
		}
		t.rows = merged
	default:
		for _, r := range rs {
			k := sort.Search(len(t.rows), func(i int) bool { return t.rows[i].after(r) })
			t.rows = slices.Insert(t.rows, k, r)
		}
	}
	if t.latest == nil {
		return
	}
	for _, r := range rs {
		key, complete := t.entityKey(r.vals)
		if cur := t.latest[key]; cur == nil || r.after(cur) {
			t.latest[key] = r
		}
		if complete {
			t.uniq[uniqKey(key, r.tsp)] = true
		}
	}
}

// span returns the index range [lo, hi) of the rows with start ≤ tsp < end
// (open bounds when unset).
func (t *table) span(start, end timeBound) (lo, hi int) {
	lo, hi = 0, len(t.rows)
	if start.set {
		lo = sort.Search(len(t.rows), func(i int) bool { return t.rows[i].tsp >= start.ms })
	}
	if end.set {
		hi = sort.Search(len(t.rows), func(i int) bool { return t.rows[i].tsp >= end.ms })
	}
	return lo, max(lo, hi)
}

// outRow builds a read or feed row from the columns cols of r, typed and
// with secrets masked.
func (t *table) outRow(r *row, cols []int) map[string]any {
	m := make(map[string]any, len(cols))
	for _, i := range cols {
		c := &t.cols[i]
		m[c.id] = outValue(c.typ, c.secret, r.vals[i])
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
