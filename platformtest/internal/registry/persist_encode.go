// This file holds the encoding of a change (persist.go): the marked
// entities in the order the store is given them (by kind, then ID, so
// that bbolt fills its pages as the keys come), each as its document. A
// large change (a provisioning) is encoded on every core: the state is
// only read meanwhile, under the registry's lock.

package registry

import (
	"maps"
	"runtime"
	"slices"
	"sync"
)

// encodeOnEveryCore is the fewest entities encoded (a change) or decoded
// (a load, load.go) on every core.
const encodeOnEveryCore = 4096

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
	if len(changes) < encodeOnEveryCore {
		return changes, s.encode(changes)
	}
	parts := runtime.GOMAXPROCS(0)
	errs := make([]error, parts)
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { errs[p] = s.encode(changes[p*len(changes)/parts : (p+1)*len(changes)/parts]) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
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
