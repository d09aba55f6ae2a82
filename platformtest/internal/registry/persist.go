// This file holds how the registry keeps its world (store.go): every
// method of State that changes an entity marks it (touch), and when the
// function given to Do or Update returns, the marked entities are encoded
// (records.go) and saved to the Store as one change, under the registry's
// lock, so that changes are kept in the order they were made and a change
// is kept before the call that made it returns. Open loads a kept world.
//
// A change that cannot be kept (the disk refuses it) is undone in memory
// too (persist_undo.go): Update reports the error, Do logs it (a full
// disk once per episode, by the data folder), and it is never kept later.

package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/datadir"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Open returns the registry kept in store, with the world it holds.
func Open(cfg Config, store Store) (*Registry, error) {
	r := &Registry{cfg: cfg, store: store}
	st, err := r.loadState()
	if err != nil {
		return nil, err
	}
	r.st = st
	cfg.Log.Info("registry loaded", "projects", len(st.projects), "devices", len(st.devices), "apps", len(st.apps),
		"installations", len(st.installs), "users", len(st.users))
	return r, nil
}

// loadState reads the store into a new state.
func (r *Registry) loadState() (State, error) {
	entities, err := r.store.Load()
	if err != nil {
		return State{}, err
	}
	st := newState(r.cfg)
	if err := st.load(entities); err != nil {
		return State{}, fmt.Errorf("registry: %w", err)
	}
	return st, nil
}

// Do runs f with the state, under the registry's lock, and keeps what f
// changed before it returns; concurrent calls share a save (rounds.go). A
// change that cannot be kept is undone and logged, except a full disk's
// refusal, which the data folder logs once per episode. f must not block
// nor take locks of other packages, and may run on another goroutine.
func (r *Registry) Do(f func(s *State)) {
	err := r.change(func(s *State) error { f(s); return nil })
	if err != nil && !errors.Is(err, datadir.ErrFull) {
		r.cfg.Log.Error("registry: a change is not kept", "err", err)
	}
}

// View runs f with the state under the registry's lock held shared, so
// that views run side by side (the router's authentications, one per
// join): f must only read, changing nothing (no Add, Set, Remove…), and
// must not block nor take locks of other packages.
func (r *Registry) View(f func(s *State)) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	f(&r.st)
}

// Update is Do for a change that reports its errors: f's error, or the
// error of keeping what f changed (what f changed before an error is kept
// too). A change that cannot be kept is undone, in memory too: nothing of
// it is kept later. Concurrent calls share a save (rounds.go), and a save
// refused undoes all of them.
func (r *Registry) Update(f func(s *State) error) error { return r.change(f) }

// Transact is Update for a change that is all or nothing: when f fails,
// what it changed is undone (put back as the store keeps it) and nothing
// is kept.
func (r *Registry) Transact(f func(s *State) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	defer r.st.endLines()
	if err := f(&r.st); err != nil {
		if uerr := r.undoLocked(); uerr != nil {
			return errors.Join(err, uerr)
		}
		return err
	}
	return r.keepLocked()
}

// keepLocked saves the marked entities and, when the store refuses them,
// undoes them in memory. The caller holds r.mu.
func (r *Registry) keepLocked() error {
	err := r.saveLocked()
	if err != nil {
		if uerr := r.undoLocked(); uerr != nil {
			return errors.Join(err, uerr)
		}
	}
	return err
}

// saveLocked keeps the marked entities as one change. The caller holds
// r.mu.
func (r *Registry) saveLocked() error {
	s := &r.st
	if len(s.dirty) == 0 {
		return nil
	}
	changes, err := s.encodeDirty()
	if err != nil {
		return err
	}
	realms := slices.ContainsFunc(changes, func(e Entity) bool { return e.Kind == KindRealm })
	if err := r.store.Save(context.Background(), changes); err != nil {
		return fmt.Errorf("registry: keep %d changed entities: %w", len(changes), err)
	}
	if realms {
		r.realmsVer.Add(1)
	}
	s.clearDirty()
	return nil
}

// RealmsVersion counts the changes of the provisioned realms (State.Realms)
// kept or undone: while it stays the same, so do the realms. It takes no
// lock, for a caller that would otherwise look at the realms after every
// change (the router).
func (r *Registry) RealmsVersion() uint64 { return r.realmsVer.Load() }

// clearDirty forgets the marks of a kept or undone change. A map keeps
// the room it once needed, and ranging over it costs that room: after a
// large change (a provisioning) a new map is made, so that the next small
// change does not pay for the large one.
func (s *State) clearDirty() {
	if len(s.dirty) > 256 {
		s.dirty = map[ref]struct{}{}
		return
	}
	clear(s.dirty)
}

// touch marks an entity changed (or removed): the next save keeps it.
func (s *State) touch(kind Kind, id string) { s.dirty[ref{kind, id}] = struct{}{} }

func (s *State) touchProject(pr *Project) { s.touch(KindProject, keyID(pr.Key)) }
func (s *State) touchDevice(d *Device)    { s.touch(KindDevice, keyID(d.Key)) }
func (s *State) touchApp(a *App)          { s.touch(KindApp, keyID(a.Key)) }
func (s *State) touchRelease(r *Release)  { s.touch(KindRelease, keyID(r.Key)) }
func (s *State) touchGroup(g *Group)      { s.touch(KindGroup, keyID(g.Key)) }
func (s *State) touchUser(u *User)        { s.touch(KindUser, u.Name) }
func (s *State) touchRealm(ri realm.Info) { s.touch(KindRealm, ri.Name) }
func (s *State) touchGrant(k grantKey)    { s.touch(KindGrant, grantID(k)) }
func (s *State) touchInstall(in *Installation) {
	s.touch(KindInstallation, instID(instKey{in.Device.Key, in.App.Key, in.Stage}))
}

// Audit compares the world in memory with the one kept in the store and
// describes every difference: an entity changed without being marked is
// not kept; an index (index.go) that does not follow its maps is named
// too. Tests call it after a change.
func (r *Registry) Audit() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept, err := r.store.Load()
	if err != nil {
		return err
	}
	stored := map[ref][]byte{}
	for _, e := range kept {
		stored[ref{e.Kind, e.ID}] = e.Doc
	}
	var diffs []string
	for _, rf := range r.st.refs() {
		doc, err := r.st.doc(rf)
		if err != nil {
			return err
		}
		switch old, ok := stored[rf]; {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s %s is not kept", rf.kind, rf.id))
		case !bytes.Equal(old, doc):
			diffs = append(diffs, fmt.Sprintf("%s %s is kept as %s, is %s", rf.kind, rf.id, old, doc))
		}
		delete(stored, rf)
	}
	for rf := range stored {
		diffs = append(diffs, fmt.Sprintf("%s %s is kept but gone", rf.kind, rf.id))
	}
	diffs = append(diffs, r.st.indexDiffs()...)
	if len(diffs) > 0 {
		slices.Sort(diffs)
		return fmt.Errorf("registry audit: %s", strings.Join(diffs, "; "))
	}
	return nil
}
