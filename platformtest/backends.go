// This file is where the facade picks the storage backend of each seam
// of package store: the data backends' rows in memory by default
// (bounded, memory.go), in the data folder's fleet.db with a folder
// (datadir.go), or in PostgreSQL (WithPostgres); the file objects and the
// keys in the data folder or in memory (the keys of secret columns with
// the rows on PostgreSQL). No service asks which one it has. It serves no
// URI.

package platformtest

import (
	"context"
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/folder"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/platformtest/internal/store/postgres"
)

// openFleetStore opens the store the options chose, with the keys kept
// with its rows: the data folder's fleet.db with a folder (datadir.go), in
// memory by default (with its bound, memory.go); the platform's keys
// (files.go) but with a store that keeps its own (PostgreSQL).
func (p *Platform) openFleetStore() (fleetdb.Store, store.Keys, error) {
	switch {
	case p.set.fleetStore != nil:
		st, keys, err := p.set.fleetStore()
		if err != nil {
			return nil, nil, fmt.Errorf("open the data store: %w", err)
		}
		if keys == nil { // a store without keys of its own
			keys = p.keys
		}
		return st, keys, nil
	case p.kept.fleet != nil:
		return folder.New(p.kept.fleet), p.keys, nil
	}
	st := memory.New(memory.RowLimit(p.set.memoryRows, p.full.reached(p.log)),
		memory.ByteLimit(p.set.memoryBytes, p.full.reachedBytes(p.log)))
	p.full.usage = func() (int64, bool) { return memory.Usage(st) }
	return st, p.keys, nil
}

// folderRows returns the rows backend of a data folder's fleet.db.
func folderRows(db *datadir.DB) fleetdb.Store { return folder.New(db) }

// postgresRows opens the PostgreSQL rows backend, with the keys it keeps
// beside the rows.
func postgresRows(ps postgresSettings) (fleetdb.Store, store.Keys, error) {
	st, err := postgres.New(context.Background(), ps.cfg)
	if err != nil {
		return nil, nil, err
	}
	return st, st, nil
}

// fleetFile is the data folder's file of the rows, without its ".db".
const fleetFile = folder.FleetFile

// openObjects picks where the file service keeps its objects and the
// platform its keys: in the data folder with one (store/folder: files.db
// and files/, checked against each other here), in memory without
// (store/memory; objects above 1 MiB in the spill folder).
func (p *Platform) openObjects() (err error) {
	if p.data == nil {
		p.objects, p.keys = memory.NewObjects(p.set.spillDir, p.log), memory.NewKeys()
		return nil
	}
	p.keys = folder.NewKeys(p.data)
	p.objects, err = folder.OpenObjects(p.data, p.log)
	return err
}
