// This file decides which seed rows (installations[].rows of flockd's
// configuration) go in when the data backends' store keeps a seed ledger
// (fleetdb.SeedLedger: the PostgreSQL store records in its own schema
// which seed rows it holds). Such a store outlives the platform's
// registry (flockd -memory -db, or a new data folder on the same
// database), so the registry cannot tell whether an installation's rows
// went in: the store's ledger does, and the rows go in once per store.
// It serves no URI.

package platformtest

import (
	"context"
	"errors"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// ledgerWants tells, for each seed installation and table, whether its
// rows go in: not when the ledger records them; not when the table holds
// rows already (from a store that kept no ledger yet, or from a start that
// stopped between the insert and its record), which are then recorded as
// the seed's; otherwise they do. It asks before any row goes in, so that
// installations seeding the same table all find it empty at the first
// start. It fails when the ledger cannot answer or record.
func (p *Platform) ledgerWants(ledger fleetdb.SeedLedger, s *Seed, res *SeedResult) (func(i int, table string) bool, error) {
	ctx := context.Background()
	empty := p.emptySeedTables(s, res) // reconcile.go
	want := map[int]map[string]bool{}
	for i, si := range s.Installations {
		if i >= len(res.Installations) {
			break
		}
		in := res.Installations[i]
		want[i] = map[string]bool{}
		for table := range si.Rows {
			done, err := ledger.Seeded(ctx, in.Realm(), table, int64(in.Device().Key()))
			switch {
			case errors.Is(err, store.ErrNotSupported):
				return nil, nil // no ledger: the seed applies as it comes
			case err != nil:
				return nil, fmt.Errorf("installations[%d].rows: %w", i, err)
			case done:
			case !empty[i][table]:
				if err := ledger.MarkSeeded(ctx, in.Realm(), table, int64(in.Device().Key())); err != nil {
					return nil, fmt.Errorf("installations[%d].rows: %w", i, err)
				}
				p.log.Info("seed: the table holds rows already; the seed's are taken as in", "realm", in.Realm(), "table", table, "device", in.Device().Name())
			default:
				want[i][table] = true
			}
		}
	}
	return func(i int, table string) bool { return want[i][table] }, nil
}

// markSeeded records in the store's ledger, if it keeps one, that the
// seed rows of in's table went in.
func (p *Platform) markSeeded(in *Installation, table string) error {
	ledger := p.fleet.SeedLedger()
	if ledger == nil {
		return nil
	}
	err := ledger.MarkSeeded(context.Background(), in.Realm(), table, int64(in.Device().Key()))
	if err != nil && !errors.Is(err, store.ErrNotSupported) {
		return fmt.Errorf("%s: %w", table, err)
	}
	return nil
}
