// This file holds the indexes the State keeps beside its maps, so that
// what a join, a page or a deletion asks costs the same whatever the
// fleet: the installations of each device and how many installations
// join each realm. (The devices by serial and by project and name are in
// devices.go.) Every change of an installation goes through putInstall
// and dropInstall; an undo (persist_undo.go) rebuilds them all (reindex).

package registry

import "maps"

// putInstall adds in under k to the installations and their indexes.
func (s *State) putInstall(k instKey, in *Installation) {
	if old := s.installs[k]; old != nil {
		s.dropInstall(k)
	}
	s.installs[k] = in
	m := s.byDevice[k.device]
	if m == nil {
		m = map[instKey]*Installation{}
		s.byDevice[k.device] = m
	}
	m[k] = in
	s.realmUse[in.Realm]++
}

// dropInstall removes the installation under k from the installations
// and their indexes.
func (s *State) dropInstall(k instKey) {
	in := s.installs[k]
	if in == nil {
		return
	}
	delete(s.installs, k)
	if m := s.byDevice[k.device]; m != nil {
		delete(m, k)
		if len(m) == 0 {
			delete(s.byDevice, k.device)
		}
	}
	if s.realmUse[in.Realm]--; s.realmUse[in.Realm] <= 0 {
		delete(s.realmUse, in.Realm)
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
	clear(s.realmUse)
	for k, in := range s.installs {
		m := s.byDevice[k.device]
		if m == nil {
			m = map[instKey]*Installation{}
			s.byDevice[k.device] = m
		}
		m[k] = in
		s.realmUse[in.Realm]++
	}
}

// indexDiffs describes where an index differs from what its maps hold
// (Audit).
func (s *State) indexDiffs() []string {
	want := State{devices: s.devices, installs: s.installs, bySerial: map[string]*Device{}, byName: map[deviceName]*Device{},
		byDevice: map[int]map[instKey]*Installation{}, realmUse: map[string]int{}}
	want.reindex()
	var diffs []string
	if !maps.Equal(s.bySerial, want.bySerial) {
		diffs = append(diffs, "the devices by serial are not those of the devices")
	}
	if !maps.Equal(s.byName, want.byName) {
		diffs = append(diffs, "the devices by project and name are not those of the devices")
	}
	if !maps.EqualFunc(s.byDevice, want.byDevice, maps.Equal) {
		diffs = append(diffs, "the installations by device are not those of the installations")
	}
	if !maps.Equal(s.realmUse, want.realmUse) {
		diffs = append(diffs, "the realms' counts of installations are not those of the installations")
	}
	return diffs
}
