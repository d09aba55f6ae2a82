// This file holds the conformance suite of the entities seam
// (store.Entities): what every backend of the registry's entities does.

package storetest

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/flockgo/ironflock/platformtest/internal/store"
)

// EntitiesBackend opens one backend's entities for the suite.
type EntitiesBackend struct {
	// Open opens the entities kept at the one place this backend was made
	// for (each call the same place), with the function that closes
	// them, or the error of a refused open.
	Open func(t *testing.T) (store.Entities, func() error, error)
	// Exclusive tells that a second Open while one is open is refused (a
	// data folder is held by one process); a backend without a place of
	// its own (memory) shares it instead.
	Exclusive bool
}

// TestEntities runs the suite: changes are kept, replaced and removed as
// one; a load returns copies; entities survive a close and an open again;
// a second open of an exclusive backend is refused.
func TestEntities(t *testing.T, b EntitiesBackend) {
	ctx := context.Background()
	es, closeFn, err := b.Open(t)
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	if got, err := es.Load(); err != nil || len(got) != 0 {
		t.Fatalf("a new store loads %v, %v: want nothing", got, err)
	}
	doc := func(s string) []byte { return []byte(s) }
	if err := es.Save(ctx, []store.Entity{
		{Kind: "project", ID: "1", Doc: doc(`{"a":1}`)},
		{Kind: "user", ID: "bob", Doc: doc(`{"b":2}`)},
		{Kind: "device", ID: "7", Doc: doc(`{"d":7}`)},
	}); err != nil {
		t.Fatalf("save: %v", err)
	}
	if err := es.Save(ctx, []store.Entity{
		{Kind: "project", ID: "1", Doc: doc(`{"a":3}`)},
		{Kind: "user", ID: "bob"},                      // removed
		{Kind: "user", ID: "eve"},                      // never kept: removing it is no error
		{Kind: "device", ID: "8", Doc: doc(`{"d":8}`)}, // added
	}); err != nil {
		t.Fatalf("save: %v", err)
	}
	if err := es.Save(ctx, nil); err != nil {
		t.Fatalf("an empty change: %v", err)
	}
	want := []store.Entity{
		{Kind: "device", ID: "7", Doc: doc(`{"d":7}`)},
		{Kind: "device", ID: "8", Doc: doc(`{"d":8}`)},
		{Kind: "project", ID: "1", Doc: doc(`{"a":3}`)},
	}
	check := func(when string, es store.Entities) {
		t.Helper()
		got, err := es.Load()
		if err != nil {
			t.Fatalf("%s: load: %v", when, err)
		}
		slices.SortFunc(got, func(a, b store.Entity) int {
			return strings.Compare(string(a.Kind)+"/"+a.ID, string(b.Kind)+"/"+b.ID)
		})
		if !slices.EqualFunc(got, want, func(a, b store.Entity) bool {
			return a.Kind == b.Kind && a.ID == b.ID && bytes.Equal(a.Doc, b.Doc)
		}) {
			t.Fatalf("%s: load %q, want %q", when, got, want)
		}
		if len(got) > 0 {
			got[0].Doc[0] = 'X' // a load returns copies
		}
	}
	check("after the changes", es)
	check("loaded again after a caller changed a loaded document", es)

	if b.Exclusive {
		if _, close2, err := b.Open(t); err == nil {
			_ = close2()
			t.Fatal("a second open while the store is open succeeded")
		}
	}
	if err := closeFn(); err != nil {
		t.Fatalf("close: %v", err)
	}
	again, closeAgain, err := b.Open(t)
	if err != nil {
		t.Fatalf("open again: %v", err)
	}
	defer func() {
		if err := closeAgain(); err != nil {
			t.Errorf("close: %v", err)
		}
	}()
	check("opened again", again)
}
