package folder

import (
	"context"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	bolt "go.etcd.io/bbolt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/template"
)

// openBoltStore returns the data folder's store in a new folder, closed
// when the test ends.
// unitRealm is the realm of these tests.
const unitRealm = "realm-2-26-DEV"

func openBoltStore(tb testing.TB) store.Rows {
	tb.Helper()
	d, err := datadir.Open(filepath.Join(tb.TempDir(), "data"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := d.Close(); err != nil {
			tb.Error(err)
		}
	})
	db, err := d.DB(FleetFile)
	if err != nil {
		tb.Fatal(err)
	}
	return New(db)
}

// TestCodecRoundTrip: every value form of store.go reads back as it was
// stored, with its type: int64 and float64 stay apart, -0 keeps its sign,
// json nests.
func TestCodecRoundTrip(t *testing.T) {
	for _, v := range []any{
		nil, true, false, int64(0), int64(-1), int64(math.MaxInt64), int64(math.MinInt64),
		0.0, math.Copysign(0, -1), 21.5, -3.0, 1e300, float64(1 << 53), float64(1<<53 + 2), -float64(1 << 52),
		"", "ü/ß\x00", strings.Repeat("x", 300),
		[]any{}, []any{1.0, "a", nil, []any{true}}, map[string]any{}, map[string]any{"k": map[string]any{"n": []any{2.5}}, "": nil},
	} {
		b, err := appendValue([]byte{0xee}, v)
		if err != nil {
			t.Fatalf("%#v: %v", v, err)
		}
		got, rest, err := readValue(b[1:])
		if err != nil || len(rest) != 0 {
			t.Fatalf("%#v: %v, %d bytes left", v, err, len(rest))
		}
		if !cmp.Equal(v, got) || fmt.Sprintf("%T", v) != fmt.Sprintf("%T", got) || (v == 0.0 && math.Signbit(v.(float64)) != math.Signbit(got.(float64))) {
			t.Errorf("%#v (%T) read back as %#v (%T)", v, v, got, got)
		}
	}
	if _, err := appendValue(nil, 3); err == nil {
		t.Error("an int was encoded: only the forms of store.go are kept")
	}
	for _, bad := range [][]byte{{}, {tagInt}, {tagFloat, 1}, {tagString, 5, 'a'}, {tagList, 200}, {99}} {
		if _, _, err := readValue(bad); err == nil {
			t.Errorf("%v decoded", bad)
		}
	}
}

// FuzzReadValue: reading any bytes as a value never panics.
func FuzzReadValue(f *testing.F) {
	f.Add([]byte{tagMap, 1, 1, 'k', tagList, 1, tagInt, 4})
	f.Fuzz(func(_ *testing.T, b []byte) { _, _, _ = readValue(b) })
}

// TestRowKeysOrder: row keys order rows by tsp (negative ones first), then
// sequence.
func TestRowKeysOrder(t *testing.T) {
	keys := [][]byte{rowKey(math.MinInt64, 9), rowKey(-1, 5), rowKey(0, 1), rowKey(0, 2), rowKey(1, 0), rowKey(math.MaxInt64, 0)}
	for i := 1; i < len(keys); i++ {
		if string(keys[i-1]) >= string(keys[i]) {
			t.Errorf("key %d %x is not below key %d %x", i-1, keys[i-1], i, keys[i])
		}
	}
	if keyTsp(rowKey(-12345, 7)) != -12345 || string(tspKey(-12345)) != string(rowKey(-12345, 0)[:8]) {
		t.Error("tsp of a key")
	}
}

// schemaOf returns the schema of unitRealm with the data template src.
func schemaOf(t *testing.T, src string) *store.Schema {
	t.Helper()
	tpl, _, err := template.ParseData([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return store.NewSchema(unitRealm, tpl)
}

// storedSlots returns the stored values by slot of every row of a table.
func storedSlots(t *testing.T, st store.Rows, table string) [][]any {
	t.Helper()
	var out [][]any
	err := st.(*boltStore).db.View(func(tx *bolt.Tx) error {
		rb := realmOf(tx, unitRealm).Bucket([]byte(prefixTable + table)).Bucket(keyRows)
		return rb.ForEach(func(k, raw []byte) error {
			slots, err := decodeSlots(k, raw)
			out = append(out, slots)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

const catalogV1 = `
data:
  tables:
    - tablename: readings
      maintainLatestFlagFor: [machine]
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: machine, name: M, dataType: string}
        - {id: v, name: V, dataType: numeric}
        - {id: note, name: Note, dataType: string}
`

// TestCatalogFollowsTemplate: a column the template no longer has is
// retired, its values kept but not read, and a column added between
// others is NULL in stored rows; a write made with the catalog of before
// is refused; Drop erases a column's values from every row; a changed
// entity key rebuilds the latest rows.
func TestCatalogFollowsTemplate(t *testing.T) {
	st := openBoltStore(t)
	ctx := context.Background()
	v1, err := st.Open(ctx, schemaOf(t, catalogV1))
	if err != nil {
		t.Fatal(err)
	}
	row := func(tsp int64, machine string, v float64, note string) *store.NewRow {
		return &store.NewRow{Vals: []any{tsp, machine, v, note, int64(42), "serial"}}
	}
	if err := v1.Append(ctx, "readings", []*store.NewRow{row(1, "m1", 1, "a"), row(2, "m2", 2, "b"), row(3, "m1", 3, "c")}); err != nil {
		t.Fatal(err)
	}

	v2src := strings.Replace(catalogV1, "        - {id: note, name: Note, dataType: string}\n", "", 1)
	v2src = strings.Replace(v2src, "        - {id: v, name: V, dataType: numeric}\n", "        - {id: w, name: W, dataType: bigint}\n        - {id: v, name: V, dataType: numeric}\n", 1)
	v2, err := st.Open(ctx, schemaOf(t, v2src))
	if err != nil {
		t.Fatal(err)
	}
	got, err := v2.Read(ctx, "readings", &store.ReadQuery{Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]any{{int64(3), "m1", nil, 3.0, int64(42), "serial"}, {int64(2), "m2", nil, 2.0, int64(42), "serial"}, {int64(1), "m1", nil, 1.0, int64(42), "serial"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows under the new template (-want +got):\n%s", diff)
	}
	if err := v1.Append(ctx, "readings", []*store.NewRow{row(4, "m1", 4, "d")}); !errors.Is(err, store.ErrSchemaChanged) {
		t.Errorf("a write with the catalog of before: %v", err)
	}
	if slots := storedSlots(t, st, "readings"); slots[0][3] != "a" {
		t.Errorf("the retired column's value is gone before Drop: %v", slots[0])
	}
	if err := st.Drop(ctx, unitRealm, nil, map[string][]string{"readings": {"note"}}); err != nil {
		t.Fatal(err)
	}
	for _, slots := range storedSlots(t, st, "readings") {
		if len(slots) > 3 && slots[3] != nil {
			t.Errorf("a dropped value is still stored: %v", slots)
		}
	}

	v3src := strings.Replace(v2src, "maintainLatestFlagFor: [machine]", "maintainLatestFlagFor: [v]", 1)
	v3, err := st.Open(ctx, schemaOf(t, v3src))
	if err != nil {
		t.Fatal(err)
	}
	latest, err := v3.Read(ctx, "readings", &store.ReadQuery{Latest: true, Limit: 10})
	if err != nil || len(latest) != 3 {
		t.Errorf("latest rows by the new entity key: %v, %v", latest, err)
	}
	if err := v3.Append(ctx, "readings", []*store.NewRow{{Vals: []any{int64(2), "m9", nil, 2.0, int64(42), "serial"}}}); !errors.Is(err, store.ErrConflict) {
		t.Errorf("the new key's UNIQUE (entity key, tsp): %v", err)
	}
}
