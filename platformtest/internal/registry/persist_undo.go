// This file holds the undo of a change the store refused (persist.go):
// every entity the change marked is put back, in memory, as the store
// keeps it, so that a refused change is never kept later by the next
// save that succeeds, and the world in memory is again the one kept.
// Entities are put back in place (the pointers handed out stay those of
// the world) except an entity the change removed, which comes back as a
// new value.

package registry

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
)

// undoLocked puts every marked entity back as the store keeps it and
// clears the marks. The caller holds r.mu. When the store cannot be read
// the marks stay (the change is then kept by the next save that works).
func (r *Registry) undoLocked() error {
	s := &r.st
	if len(s.dirty) == 0 {
		return nil
	}
	kept, err := r.loadState()
	if err != nil {
		return fmt.Errorf("registry: undo a refused change: %w", err)
	}
	refs := slices.Collect(maps.Keys(s.dirty))
	slices.SortFunc(refs, func(a, b ref) int {
		return cmp.Or(cmp.Compare(slices.Index(Kinds, a.kind), slices.Index(Kinds, b.kind)), cmp.Compare(a.id, b.id))
	})
	for _, rf := range refs { // kinds in load order: what an entity names is put back before it
		s.undo(rf, &kept)
		if rf.kind == KindRealm {
			r.realmsVer.Add(1)
		}
	}
	s.reindex() // the maps were put back in place
	s.clearDirty()
	return nil
}

// undo puts the entity rf names back as it is in kept.
func (s *State) undo(rf ref, kept *State) {
	switch rf.kind {
	case KindCounter:
		putBack(s.next, kept.next, rf.id, nil)
	case KindProject:
		putBack(s.projects, kept.projects, atoi(rf.id), func(cur, old *Project) { *cur = *old })
	case KindUser:
		putBack(s.users, kept.users, rf.id, func(cur, old *User) { *cur = *old })
	case KindApp:
		putBack(s.apps, kept.apps, atoi(rf.id), func(cur, old *App) { *cur = *old })
	case KindRelease:
		putBack(s.releases, kept.releases, atoi(rf.id), undoRelease)
	case KindDevice:
		putBack(s.devices, kept.devices, atoi(rf.id), func(cur, old *Device) { *cur = *old })
	case KindGroup:
		putBack(s.groups, kept.groups, atoi(rf.id), func(cur, old *Group) { *cur = *old })
	case KindInstallation:
		k, _ := parseInstID(rf.id)
		if cur := s.installs[k]; cur != nil && kept.installs[k] == nil {
			cur.Removed = true // made by the refused change
		}
		putBack(s.installs, kept.installs, k, func(cur, old *Installation) { *cur = *old })
	case KindRealm:
		putBack(s.realms, kept.realms, rf.id, nil)
	case KindGrant:
		k, _ := parseGrantID(rf.id)
		putBack(s.grants, kept.grants, k, nil)
	}
	s.relink(rf)
}

// putBack makes cur[k] what kept[k] is: removed when kept has none, the
// kept value when cur has none (or copy is nil), else copied into cur's
// own value by copy.
func putBack[K comparable, V any](cur, kept map[K]V, k K, copy func(cur, old V)) {
	old, ok := kept[k]
	switch c, has := cur[k]; {
	case !ok:
		delete(cur, k)
	case !has || copy == nil:
		cur[k] = old
	default:
		copy(c, old)
	}
}

// undoRelease copies a kept release into the one in memory, keeping what
// is not kept (its waiters) and a Done that is closed exactly when the
// build has ended.
func undoRelease(cur, old *Release) {
	done, waiters := cur.Done, cur.Waiters
	*cur = *old
	cur.Waiters = waiters
	ended := false
	select {
	case <-done:
		ended = true
	default:
	}
	switch building := old.Status == ReleaseBuilding; {
	case building && ended:
		cur.Done = make(chan struct{}) // a refused settle had ended it
	case !building && !ended:
		close(done)
		cur.Done = done
	default:
		cur.Done = done
	}
}

// relink makes the references of the entity rf names, put back from a
// kept world, name the entities of s (the world in memory) instead.
func (s *State) relink(rf ref) {
	switch rf.kind {
	case KindApp:
		if a := s.apps[atoi(rf.id)]; a != nil && a.Owner != nil {
			a.Owner = s.users[a.Owner.Name]
		}
	case KindRelease:
		if r := s.releases[atoi(rf.id)]; r != nil {
			r.App = s.apps[r.App.Key]
		}
	case KindDevice:
		if d := s.devices[atoi(rf.id)]; d != nil {
			d.Project = s.projects[d.Project.Key]
		}
	case KindGroup:
		if g := s.groups[atoi(rf.id)]; g != nil {
			g.Project = s.projects[g.Project.Key]
			g.Devices = slices.Clone(g.Devices)
			for i, d := range g.Devices {
				g.Devices[i] = s.devices[d.Key]
			}
			apps := make([]*GroupApp, len(g.Apps))
			for i, ga := range g.Apps {
				c := *ga
				c.App = s.apps[ga.App.Key]
				if ga.Release != nil {
					c.Release = s.releases[ga.Release.Key]
				}
				apps[i] = &c
			}
			g.Apps = apps
		}
	case KindInstallation:
		k, _ := parseInstID(rf.id)
		if in := s.installs[k]; in != nil {
			in.Device, in.App = s.devices[in.Device.Key], s.apps[in.App.Key]
			if in.Release != nil {
				in.Release = s.releases[in.Release.Key]
			}
			if in.Group != nil {
				in.Group = s.groups[in.Group.Key]
			}
		}
	}
}
