// This file holds a table's catalog in the data folder's store
// (folder.go): which slot of a stored row holds which column, how the
// catalog follows a changed data template, and the table's counters. It
// serves no URI.
//
// A row stores its values by slot, not by the column's place in the
// template, so that a template may add a column anywhere without a row
// being rewritten: the new column gets the next slot, which the stored
// rows lack (NULL). A column that leaves the template, or changes its
// type or secrecy, is retired: its slot is no longer read, but its values
// stay until the reconciliation drops them (Drop, which erases them from
// every row). A column that comes back gets a new slot. Every change of
// the slots raises the catalog's generation, which an append checks, so a
// write made with a catalog that changed meanwhile is refused rather than
// stored under the wrong slots.

package folder

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// Keys of a table's bucket: the catalog, the counters, and the buckets of
// the rows, the newest row per entity and the (entity key, tsp) pairs.
var (
	keyCatalog = []byte("c")
	keyMeta    = []byte("m")
	keyRows    = []byte("r")
	keyLatest  = []byte("l")
	keyUnique  = []byte("u")
)

// catalog is what a table's slots hold (the value under keyCatalog,
// JSON).
type catalog struct {
	Cols []catalogCol `json:"cols"`
	Next int          `json:"next"` // the next free slot
	// Entity are the ids of the entity-key columns the latest and unique
	// buckets were built for.
	Entity []string `json:"entity,omitempty"`
	// Erase are the slots of dropped columns whose values are still being
	// erased from the rows (Drop); done, it is empty.
	Erase []int  `json:"erase,omitempty"`
	Gen   uint64 `json:"gen"`
}

// catalogCol is a column's slot.
type catalogCol struct {
	Slot    int               `json:"slot"`
	ID      string            `json:"id"`
	Type    template.DataType `json:"type"`
	Secret  bool              `json:"secret,omitempty"`
	Retired bool              `json:"retired,omitempty"`
}

// meta is a table's counters (the value under keyMeta): the last row
// sequence, the next id of error-logs, the rows held and the catalog's
// generation, each 8 bytes big-endian.
type meta struct {
	seq, nextID, count, gen uint64
}

const metaSize = 32

func (m meta) bytes() []byte {
	b := make([]byte, 0, metaSize)
	for _, v := range []uint64{m.seq, m.nextID, m.count, m.gen} {
		b = binary.BigEndian.AppendUint64(b, v)
	}
	return b
}

// readMeta reads a table's counters; a table without any has none yet.
func readMeta(tb *bolt.Bucket) (meta, error) {
	raw, err := datadir.Get(tb, keyMeta)
	switch {
	case err != nil:
		return meta{}, err
	case raw == nil:
		return meta{nextID: 1}, nil
	case len(raw) != metaSize:
		return meta{}, fmt.Errorf("%w: counters of %d bytes", errCodec, len(raw))
	}
	u := func(i int) uint64 { return binary.BigEndian.Uint64(raw[i*8:]) }
	return meta{seq: u(0), nextID: u(1), count: u(2), gen: u(3)}, nil
}

// readCatalog reads a table's catalog; nil for a new table.
func readCatalog(tb *bolt.Bucket) (*catalog, error) {
	raw, err := datadir.Get(tb, keyCatalog)
	if err != nil || raw == nil {
		return nil, err
	}
	c := &catalog{}
	if err := json.Unmarshal(raw, c); err != nil {
		return nil, fmt.Errorf("%w: catalog: %v", errCodec, err)
	}
	return c, nil
}

// write stores the catalog.
func (c *catalog) write(tb *bolt.Bucket) error {
	raw, err := json.Marshal(c)
	if err != nil {
		return err
	}
	return datadir.Put(tb, keyCatalog, raw)
}

// follow brings the catalog in line with a table's schema: a column of the
// schema keeps its slot when an active one has its id, type and secrecy,
// and gets the next slot otherwise; active columns the schema lacks (or
// holds differently) are retired. It returns the slot of each schema
// column, and whether the catalog changed.
func (c *catalog) follow(s *store.TableSchema) (slots []int, changed bool) {
	slots = make([]int, len(s.Columns))
	used := make([]bool, len(c.Cols))
	for i, col := range s.Columns {
		j := slices.IndexFunc(c.Cols, func(cc catalogCol) bool { return !cc.Retired && cc.ID == col.ID })
		if j >= 0 && c.Cols[j].Type == col.Type && c.Cols[j].Secret == col.Secret {
			slots[i], used[j] = c.Cols[j].Slot, true
			continue
		}
		slots[i] = c.Next
		c.Cols = append(c.Cols, catalogCol{Slot: c.Next, ID: col.ID, Type: col.Type, Secret: col.Secret})
		used = append(used, true)
		c.Next++
		changed = true
	}
	for j := range c.Cols {
		if !used[j] && !c.Cols[j].Retired {
			c.Cols[j].Retired, changed = true, true
		}
	}
	return slots, changed
}

// entityIDs returns the ids of a schema's entity-key columns.
func entityIDs(s *store.TableSchema) []string {
	var ids []string
	for _, i := range s.EntityKey {
		ids = append(ids, s.Columns[i].ID)
	}
	return ids
}

// drop removes the columns with the given ids from the catalog, retired
// or not, and marks their slots for erasing. It reports whether any was
// there.
func (c *catalog) drop(ids []string) bool {
	n := len(c.Cols)
	c.Cols = slices.DeleteFunc(c.Cols, func(cc catalogCol) bool {
		if slices.Contains(ids, cc.ID) {
			c.Erase = append(c.Erase, cc.Slot)
			return true
		}
		return false
	})
	return len(c.Cols) != n
}
