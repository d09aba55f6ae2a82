// This file holds the DB: the data backends of a platform by realm, each
// created from its app's data template the first time the realm is used
// and kept for the life of the DB, so rows survive Restart, Down/Up and
// withheld realms (a realm's Hosts come and go, its backend stays). The
// rows themselves are in the DB's Store (store.go). It serves no URI.

package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/store"
	"github.com/flockgo/ironflock/platformtest/internal/store/memory"
	"github.com/flockgo/ironflock/template"
)

// Config is what a DB needs from the platform.
type Config struct {
	// Lookup returns a provisioned realm and the data template of its
	// app, parsed (nil: an app without tables). It fails for a realm that
	// does not exist. The DB calls it without holding its own locks.
	Lookup func(realm string) (realm.Info, *template.DataTemplate, error)
	// Store keeps the rows; nil is a memory store (store/memory).
	Store Store
	// Clock is the platform clock, which drives the schedules
	// (schedule.go); nil is real time.
	Clock realm.Clock
	// Log receives what the scheduled work and the store report; nil
	// discards it.
	Log *slog.Logger
	// SecretKey is the 32-byte key of secret columns; anything else is a
	// fresh random key. The platform gives the key kept with the rows
	// (store.Keys' store.SecretColumnsKey).
	SecretKey []byte
	// Dropped, when set, is told of every row that lost a key no column
	// reads or was dropped for its missing tsp (drops.go), on the
	// writer's service goroutine.
	Dropped func(Drop)
}

// realClock is real time.
type realClock struct{}

func (realClock) Now() time.Time                         { return time.Now() }
func (realClock) After(d time.Duration) <-chan time.Time { return time.After(d) }

// DB is the fake data backend of a platform: one backend per realm, with
// its own state, its rows in the Store. It is a realm.Service, safe for
// concurrent use.
type DB struct {
	cfg      Config
	seal     *sealer    // the key of secret columns, one per platform (crypt.go)
	mu       sync.Mutex // guards backends
	backends map[string]*backend
	drops    dropLog                // what writes lost (drops.go)
	refusals map[string]*fleetError // RefuseWrites, by realm (refuse.go); guarded by mu
}

// New returns a DB over cfg.Store with cfg.SecretKey (or a fresh random
// key) for secret columns.
func New(cfg Config) *DB {
	if cfg.Store == nil {
		cfg.Store = memory.New()
	}
	if cfg.Clock == nil {
		cfg.Clock = realClock{}
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	return &DB{cfg: cfg, seal: newSealer(cfg.SecretKey), backends: map[string]*backend{}}
}

// Close stops the backends' schedules and closes the DB's store.
func (db *DB) Close() error {
	for _, b := range db.openBackends() {
		b.sched.close()
	}
	return db.cfg.Store.Close()
}

// backend returns the data backend of a provisioned realm, creating it
// from the app's data template, with its storage, on first use.
func (db *DB) backend(ctx context.Context, name string) (*backend, error) {
	db.mu.Lock()
	b := db.backends[name]
	db.mu.Unlock()
	if b != nil {
		return b, nil
	}
	ri, tpl, err := db.cfg.Lookup(name)
	if err != nil {
		return nil, err
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	if b := db.backends[name]; b != nil {
		return b, nil // created meanwhile
	}
	b, schema := newBackend(ri, tpl, db.seal)
	b.dropped = db.reportDrops
	b.refused = func() *fleetError { return db.writeRefusal(name) }
	if b.store, err = db.cfg.Store.Open(ctx, schema); err != nil {
		return nil, fmt.Errorf("data backend of %s: %w", name, err)
	}
	for _, note := range b.store.Notes() {
		db.cfg.Log.Warn("fleetdb: "+note, "realm", name)
	}
	if b.hasKnobs() {
		err := b.store.Maintain(ctx, db.cfg.Clock.Now().UnixMilli())
		switch {
		case errors.Is(err, store.ErrNotSupported):
			b.keepsAll = true // no maintenance to schedule
		case err != nil:
			db.cfg.Log.Warn("fleetdb: retention and downsampling failed", "realm", name, "err", err)
		}
	}
	if err := b.schedule(db.cfg.Clock, db.cfg.Log); err != nil {
		return nil, fmt.Errorf("data backend of %s: %w", name, err)
	}
	db.backends[name] = b
	return b, nil
}
