package postgres

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/storetest"
	"github.com/flockgo/ironflock/template"
)

// TestPostgresConversions: the store's SQL functions convert as the
// reference does: numbers as JavaScript's String() and Go's JSON write
// them, json values as canonical JSON texts.
func TestPostgresConversions(t *testing.T) {
	url := storetest.PostgresURL(t)
	if url == "" {
		t.Log("not run: $" + storetest.PostgresEnv + " is not set")
		return
	}
	st := openScratch(t, url, Config{})
	ctx := context.Background()
	r := rand.New(rand.NewPCG(7, 11))
	nums := []float64{0.1, 1e21, 1e-7, 1.5e-10, 123456789012345678, 1e20, 2e-6, 1e-6, 9007199254740993, -3.25, 5e-324,
		math.MaxFloat64, 0.000001234, 1234567.891, -1e21, 1e15, 1e16, 100}
	for range 300 {
		nums = append(nums, math.Float64frombits(r.Uint64()&^(0x7ff<<52)|uint64(900+r.IntN(250))<<52)*float64(1-2*r.IntN(2)))
	}
	for _, f := range nums {
		var got string
		if err := st.pool.QueryRow(ctx, "SELECT "+qi(st.meta)+".ifl_num_text($1)", f).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := store.JSFormatNumber(f); got != want {
			t.Errorf("ifl_num_text(%v) = %q, want %q", f, got, want)
		}
	}
	for range 200 {
		v := storetest.RandomDoc(r, 0)
		if v == nil {
			continue
		}
		arg, _ := pgArg(template.TypeJSON, v)
		var got string
		if err := st.pool.QueryRow(ctx, "SELECT "+qi(st.meta)+".ifl_go_json($1::jsonb)", arg).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if want := store.JSONText(v); got != want {
			t.Errorf("ifl_go_json(%s) = %q, want %q", arg, got, want)
		}
	}
}
