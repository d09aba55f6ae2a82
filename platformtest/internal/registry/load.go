// This file holds how a registry reads its kept world (persist.go): every
// document is decoded and checked against its ID first, on every core (a
// restart with 100,000 devices and installations decodes 200,000), then
// linked into the state one by one in load order (records.go: loadOne),
// each reference checked. The first problem in that order is the error,
// naming the entity, whichever phase found it.

package registry

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// load fills an empty state from kept entities, checking every document
// and every reference; the first problem is the error, naming the entity.
func (s *State) load(entities []Entity) error {
	rank := make(map[Kind]int, len(Kinds))
	for i, k := range Kinds {
		rank[k] = i
	}
	slices.SortFunc(entities, func(a, b Entity) int {
		if a.Kind != b.Kind {
			return cmp.Compare(rank[a.Kind], rank[b.Kind])
		}
		return cmp.Compare(a.ID, b.ID)
	})
	docs, errs := decodeAll(entities)
	for i, e := range entities {
		err := errs[i]
		if err == nil {
			err = s.loadOne(e, docs[i])
		}
		if err != nil {
			return fmt.Errorf("kept %s %s: %w", e.Kind, e.ID, err)
		}
	}
	return nil
}

// decodeAll decodes every entity's document, on every core for many
// (cores.go).
func decodeAll(entities []Entity) (docs []any, errs []error) {
	docs, errs = make([]any, len(entities)), make([]error, len(entities))
	_ = onEveryCore(len(entities), func(from, to int) error {
		for i := from; i < to; i++ {
			docs[i], errs[i] = decode(entities[i])
		}
		return nil // each entity's error is its own, in errs
	})
	return docs, errs
}

// decode decodes e's document into a new value of its kind's document and
// checks that it is the document of e's ID.
func decode(e Entity) (any, error) {
	v, id := newDoc(e.Kind)
	if v == nil {
		return nil, fmt.Errorf("a kind this flockd does not know")
	}
	if err := json.Unmarshal(e.Doc, v); err != nil {
		return nil, fmt.Errorf("document %.80q does not read: %w", e.Doc, err)
	}
	if id != nil && id() != e.ID {
		return nil, fmt.Errorf("the document is that of %q", id())
	}
	return v, nil
}

// newDoc returns a new document of kind k to decode into and the ID it
// names once decoded (nil: any); nil for a kind this registry does not
// know.
func newDoc(k Kind) (v any, id func() string) {
	switch k {
	case KindCounter:
		return &counterDoc{}, nil
	case KindProject:
		pr := &Project{}
		return pr, func() string { return keyID(pr.Key) }
	case KindUser:
		u := &User{}
		return u, func() string { return u.Name }
	case KindApp:
		d := &appDoc{App: &App{}}
		return d, func() string { return keyID(d.Key) }
	case KindRelease:
		d := &releaseDoc{Release: &Release{}}
		return d, func() string { return keyID(d.Key) }
	case KindDevice:
		d := &deviceDoc{Device: &Device{}}
		return d, func() string { return keyID(d.Key) }
	case KindGroup:
		d := &groupDoc{Group: &Group{}}
		return d, func() string { return keyID(d.Key) }
	case KindInstallation:
		d := &installDoc{Installation: &Installation{}}
		return d, func() string { return instID(instKey{d.Device, d.App, d.Stage}) }
	case KindRealm:
		d := &realmDoc{}
		return d, func() string { return realm.NewInfo(d.Swarm, d.App, d.Stage).Name }
	case KindGrant:
		d := &grantDoc{}
		return d, func() string { return grantID(grantKey{d.Swarm, d.Consumer, d.Provider}) }
	}
	return nil, nil
}
