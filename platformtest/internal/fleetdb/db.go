// This file holds the DB: the data backends of a platform by realm, each
// created from its app's data template the first time the realm is used
// and kept for the life of the DB, so rows survive Restart, Down/Up and
// withheld realms (a realm's Hosts come and go, its backend stays). The
// rows themselves are in the DB's Store (store.go). It serves no URI.

package fleetdb

import (
	"context"
	"fmt"
	"sync"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/template"
)

// Config is what a DB needs from the platform.
type Config struct {
	// Lookup returns a provisioned realm and the data template of its
	// app, parsed (nil: an app without tables). It fails for a realm that
	// does not exist. The DB calls it without holding its own locks.
	Lookup func(realm string) (realm.Info, *template.DataTemplate, error)
	// Store keeps the rows; nil is a memory store (NewMemoryStore).
	Store Store
	// SecretKey is the 32-byte AES-256 key of secret columns (crypt.go);
	// nil makes a fresh random one. A store that keeps rows across
	// restarts needs the same key at every start, or its secrets cannot
	// be read.
	SecretKey []byte
}

// DB is the fake data backend of a platform: one backend per realm, with
// its own state, its rows in the Store. It is a realm.Service, safe for
// concurrent use.
type DB struct {
	cfg      Config
	seal     *sealer    // the key of secret columns, one per platform (crypt.go)
	mu       sync.Mutex // guards backends
	backends map[string]*backend
}

// New returns a DB over cfg.Store with cfg.SecretKey for secret columns
// (a fresh random key when it is nil). It panics when the key is not
// SecretKeySize bytes: the caller checks a key it reads from a file.
func New(cfg Config) *DB {
	if cfg.Store == nil {
		cfg.Store = NewMemoryStore()
	}
	return &DB{cfg: cfg, seal: newSealer(cfg.SecretKey), backends: map[string]*backend{}}
}

// Close closes the DB's store.
func (db *DB) Close() error { return db.cfg.Store.Close() }

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
	if b.store, err = db.cfg.Store.Open(ctx, schema); err != nil {
		return nil, fmt.Errorf("data backend of %s: %w", name, err)
	}
	db.backends[name] = b
	return b, nil
}
