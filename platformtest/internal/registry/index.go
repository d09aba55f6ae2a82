// This file holds the indexes the State keeps beside its maps, so that
// what a join, a page or a deletion asks costs the same whatever the
// fleet: the installations of each device and those of each realm. (The devices by serial and by project and name are in
// devices.go.) Every change of an installation goes through putInstall
// and dropInstall; an undo (persist_undo.go) rebuilds them all (reindex).

package registry

import (
	"cmp"
	"maps"
	"slices"
)

// putInstall adds in under k to the installations and their indexes.
func (s *State) putInstall(k instKey, in *Installation) {
	if old := s.installs[k]; old != nil {
		s.dropInstall(k)
	}
	s.installs[k] = in
	s.byDevice[k.device] = append(s.byDevice[k.device], in)
	s.addToRealm(in)
}

// addToRealm adds in to the installations of its realm.
func (s *State) addToRealm(in *Installation) {
	if s.byRealm[in.Realm] == nil {
		s.byRealm[in.Realm] = map[*Installation]struct{}{}
	}
	s.byRealm[in.Realm][in] = struct{}{}
}

// dropInstall removes the installation under k from the installations
// and their indexes.
func (s *State) dropInstall(k instKey) {
	in := s.installs[k]
	if in == nil {
		return
	}
	delete(s.installs, k)
	if m := slices.DeleteFunc(s.byDevice[k.device], func(o *Installation) bool { return o == in }); len(m) > 0 {
		s.byDevice[k.device] = m
	} else {
		delete(s.byDevice, k.device)
	}
	if delete(s.byRealm[in.Realm], in); len(s.byRealm[in.Realm]) == 0 {
		delete(s.byRealm, in.Realm)
	}
}

// reindex rebuilds every index from the maps, after they were changed
// in place (an undo).
func (s *State) reindex() {
	clear(s.bySerial)
	clear(s.byName)
	for _, d := range s.devices {
		s.bySerial[d.Serial] = d
		s.byName[deviceName{d.Project, d.Name}] = d
	}
	clear(s.byDevice)
	clear(s.byRealm)
	for _, k := range slices.SortedFunc(maps.Keys(s.installs), compareInstKeys) {
		in := s.installs[k]
		s.byDevice[k.device] = append(s.byDevice[k.device], in)
		s.addToRealm(in)
	}
}

// indexDiffs describes where an index differs from what its maps hold
// (Audit).
func (s *State) indexDiffs() []string {
	want := State{devices: s.devices, installs: s.installs, bySerial: map[string]*Device{}, byName: map[deviceName]*Device{},
		byDevice: map[int][]*Installation{}, byRealm: map[string]map[*Installation]struct{}{}}
	want.reindex()
	var diffs []string
	if !maps.Equal(s.bySerial, want.bySerial) {
		diffs = append(diffs, "the devices by serial are not those of the devices")
	}
	if !maps.Equal(s.byName, want.byName) {
		diffs = append(diffs, "the devices by project and name are not those of the devices")
	}
	if !maps.EqualFunc(s.byDevice, want.byDevice, sameInstalls) {
		diffs = append(diffs, "the installations by device are not those of the installations")
	}
	if !maps.EqualFunc(s.byRealm, want.byRealm, maps.Equal) {
		diffs = append(diffs, "the installations by realm are not those of the installations")
	}
	return diffs
}

// sameInstalls reports whether a and b hold the same installations, in
// any order.
func sameInstalls(a, b []*Installation) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(in *Installation) bool { return !slices.Contains(b, in) })
}

// compareInstKeys orders installation keys by device, app and stage.
func compareInstKeys(a, b instKey) int {
	return cmp.Or(cmp.Compare(a.device, b.device), cmp.Compare(a.app, b.app), cmp.Compare(a.stage, b.stage))
}
