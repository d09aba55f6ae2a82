package registry

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
)

// gatedStore holds the first save it is given until open is closed,
// counts the saves and, while refuse is set, refuses every save but the
// first.
type gatedStore struct {
	*MemoryStore
	held   chan struct{} // closed once the first save waits
	open   chan struct{}
	mu     sync.Mutex
	saves  int
	refuse bool
}

func newGatedStore() *gatedStore {
	return &gatedStore{MemoryStore: NewMemoryStore(), held: make(chan struct{}), open: make(chan struct{})}
}

// count returns how many saves the store was given.
func (g *gatedStore) count() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.saves
}

func (g *gatedStore) Save(ctx context.Context, changes []Entity) error {
	g.mu.Lock()
	g.saves++
	first, refuse := g.saves == 1, g.refuse
	g.mu.Unlock()
	if first {
		close(g.held)
		<-g.open
	}
	if refuse && !first {
		return errors.New("disk full")
	}
	return g.MemoryStore.Save(ctx, changes)
}

// queued waits until n changes wait for the next round.
func (r *Registry) queued(n int) {
	for {
		r.rounds.mu.Lock()
		got := len(r.rounds.queue)
		r.rounds.mu.Unlock()
		if got == n {
			return
		}
		runtime.Gosched()
	}
}

// roundOfEight holds one change in its save, queues eight more behind it
// (the i-th made by change(i)), then lets the save go and returns what
// each of the eight calls returned or panicked with.
func roundOfEight(t *testing.T, r *Registry, g *gatedStore, change func(i int) func(*State) error) (errs []error, panics []any) {
	t.Helper()
	first := make(chan error, 1)
	go func() {
		first <- r.Update(func(s *State) error { _, err := s.AddProject("first", Spec{}); return err })
	}()
	<-g.held
	errs, panics = make([]error, 8), make([]any, 8)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			defer func() { panics[i] = recover() }()
			errs[i] = r.Update(change(i))
		})
	}
	r.queued(8)
	close(g.open)
	wg.Wait()
	if err := <-first; err != nil {
		t.Fatalf("the first change: %v", err)
	}
	return errs, panics
}

// TestChangesShareARound: changes made while a save is running wait for
// it and are then kept together, in one save, each caller getting its own
// function's error; a panic is its own caller's.
func TestChangesShareARound(t *testing.T) {
	g := newGatedStore()
	r, err := Open(testConfig(), g)
	must(t, err)
	errs, panics := roundOfEight(t, r, g, func(i int) func(*State) error {
		return func(s *State) error {
			switch i {
			case 3:
				return fmt.Errorf("change %d refused by its function", i)
			case 5:
				panic("change 5 panics")
			}
			_, err := s.AddProject(fmt.Sprintf("p%d", i), Spec{})
			return err
		}
	})
	for i := range 8 {
		switch {
		case i == 3:
			if errs[i] == nil || !strings.Contains(errs[i].Error(), "change 3 refused") {
				t.Errorf("change 3 returned %v", errs[i])
			}
		case i == 5:
			if panics[i] != "change 5 panics" {
				t.Errorf("change 5 panicked with %v", panics[i])
			}
		case errs[i] != nil || panics[i] != nil:
			t.Errorf("change %d: %v, panic %v", i, errs[i], panics[i])
		}
	}
	if n := g.count(); n != 2 {
		t.Errorf("%d saves, want 2: the first change's and one for the eight behind it", n)
	}
	r.View(func(s *State) {
		for i := range 8 {
			if got := s.ProjectByName(fmt.Sprintf("p%d", i)) != nil; got != (i != 3 && i != 5) {
				t.Errorf("project p%d exists: %v", i, got)
			}
		}
	})
	if err := r.Audit(); err != nil {
		t.Error(err)
	}
	if err := r.Update(func(s *State) error { _, err := s.AddProject("alone", Spec{}); return err }); err != nil || g.count() != 3 {
		t.Errorf("a lone change: %v, %d saves, want 3", err, g.count())
	}
}

// TestRefusedRoundUndoesEveryChange: when the store refuses a round's
// save, each of its callers gets the error and none of their changes
// stays, in memory or later.
func TestRefusedRoundUndoesEveryChange(t *testing.T) {
	g := newGatedStore()
	r, err := Open(testConfig(), g)
	must(t, err)
	g.refuse = true // the first change is held, then kept; the round behind it is refused
	errs, _ := roundOfEight(t, r, g, func(i int) func(*State) error {
		return func(s *State) error { _, err := s.AddProject(fmt.Sprintf("p%d", i), Spec{}); return err }
	})
	for i, err := range errs {
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("change %d: %v, want the store's refusal", i, err)
		}
	}
	g.mu.Lock()
	g.refuse = false
	g.mu.Unlock()
	r.Do(func(s *State) { s.touchProject(s.ProjectByName("first")) }) // a save that works
	r.View(func(s *State) {
		for i := range 8 {
			if s.ProjectByName(fmt.Sprintf("p%d", i)) != nil {
				t.Errorf("project p%d of the refused round exists", i)
			}
		}
	})
	if err := r.Audit(); err != nil {
		t.Error(err)
	}
}

// TestRealmsVersion: the version moves when a change kept or undone made
// or removed a realm, and stays when a change touched no realm.
func TestRealmsVersion(t *testing.T) {
	fs := &failingStore{MemoryStore: NewMemoryStore()}
	r, err := Open(testConfig(), fs)
	must(t, err)
	var d1, d2 *Device
	var a *App
	must(t, r.Update(func(s *State) error {
		pr, err := s.AddProject("plant", Spec{})
		if err != nil {
			return err
		}
		if d1, err = s.AddDevice("press-1", Spec{Project: pr}); err != nil {
			return err
		}
		if d2, err = s.AddDevice("press-2", Spec{Project: pr}); err != nil {
			return err
		}
		a, err = s.AddApp("sensors", sensorsTemplate, "", KeySpec(10))
		return err
	}))
	v0 := r.RealmsVersion()
	install := func(d *Device) error {
		return r.Update(func(s *State) error { _, err := s.Install(d, a, wire.StageDev); return err })
	}
	must(t, install(d1)) // the realm of the project's sensors in DEV is made
	v1 := r.RealmsVersion()
	must(t, install(d2)) // the same realm
	r.Do(func(s *State) { d1.Name = "renamed"; s.touchDevice(d1) })
	if v1 == v0 || r.RealmsVersion() != v1 {
		t.Errorf("versions %d, %d, %d: want a move at the first installation only", v0, v1, r.RealmsVersion())
	}
	fs.refuse = true
	r.Do(func(s *State) { // the realm goes, and comes back when refused
		for _, ri := range s.Realms() {
			s.ForgetRealm(ri.Name)
		}
	})
	fs.refuse = false
	var realms int
	r.View(func(s *State) { realms = len(s.Realms()) })
	if r.RealmsVersion() == v1 || realms != 1 {
		t.Errorf("after a refused change that removed the realm: version %d (was %d), %d realms", r.RealmsVersion(), v1, realms)
	}
}

// TestLargeChangeKept: a change large enough to be encoded on every core
// is kept whole, in the store's order, and one entity that cannot be
// encoded fails the whole change, naming it.
func TestLargeChangeKept(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			st := newStore()
			r, err := Open(testConfig(), st)
			must(t, err)
			n := onEveryCoreFrom + 100
			must(t, r.Update(func(s *State) error {
				pr, err := s.AddProject("fleet", Spec{})
				for i := 0; i < n && err == nil; i++ {
					_, err = s.AddDevice(fmt.Sprintf("meter-%05d", i), Spec{Project: pr})
				}
				return err
			}))
			if err := r.Audit(); err != nil {
				t.Fatal(err)
			}
			again, err := Open(testConfig(), st)
			must(t, err)
			again.View(func(s *State) {
				if got := len(s.Devices()); got != n {
					t.Errorf("reopened: %d devices, want %d", got, n)
				}
			})
			err = r.Update(func(s *State) error {
				for _, d := range s.Devices() {
					d.Description = "renamed"
					s.touchDevice(d)
				}
				s.touch("bogus", "x")
				return nil
			})
			if err == nil || !strings.Contains(err.Error(), `unknown kind "bogus"`) {
				t.Fatalf("a change with an entity of unknown kind: %v", err)
			}
			if err := r.Audit(); err != nil { // undone: nothing of it kept or left in memory
				t.Error(err)
			}

			// Damage two devices: the first in load order is the error,
			// though another core decoded the second.
			kept, err := st.Load()
			must(t, err)
			var devices []Entity
			for _, e := range kept {
				if e.Kind == KindDevice {
					devices = append(devices, e)
				}
			}
			slices.SortFunc(devices, func(a, b Entity) int { return strings.Compare(a.ID, b.ID) })
			first, last := devices[10], devices[len(devices)-1]
			must(t, st.Save(context.Background(), []Entity{{Kind: KindDevice, ID: first.ID, Doc: devices[11].Doc},
				{Kind: KindDevice, ID: last.ID, Doc: []byte(`{"key":`)}}))
			_, err = Open(testConfig(), st)
			if want := fmt.Sprintf("kept device %s: the document is that of %q", first.ID, devices[11].ID); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("opening a world with two damaged devices: %v, want %s", err, want)
			}
		})
	}
}
