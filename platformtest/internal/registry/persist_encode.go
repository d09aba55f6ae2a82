// This file holds the encoding of a change (persist.go): the marked
// entities in the order the store is given them (by kind, then ID, so
// that bbolt fills its pages as the keys come), each as its document. A
// large change (a provisioning) is encoded on every core (cores.go): the
// state is only read meanwhile, under the registry's lock.

package registry

import (
	"maps"
	"slices"
)

// encodeDirty returns the marked entities, sorted by kind then ID, with
// their documents (nil: removed).
func (s *State) encodeDirty() ([]Entity, error) {
	ids := map[Kind][]string{}
	for rf := range s.dirty {
		ids[rf.kind] = append(ids[rf.kind], rf.id)
	}
	changes := make([]Entity, 0, len(s.dirty))
	for _, kind := range slices.Sorted(maps.Keys(ids)) {
		slices.Sort(ids[kind])
		for _, id := range ids[kind] {
			changes = append(changes, Entity{Kind: kind, ID: id})
		}
	}
	err := onEveryCore(len(changes), func(from, to int) error { return s.encode(changes[from:to]) })
	if err != nil {
		return nil, err
	}
	return changes, nil
}

// encode sets the document of each of part's entities.
func (s *State) encode(part []Entity) error {
	for i := range part {
		doc, err := s.doc(ref{part[i].Kind, part[i].ID})
		if err != nil {
			return err
		}
		part[i].Doc = doc
	}
	return nil
}
