package registry

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/datadir"
)

// testClock is a platform clock standing still.
type testClock struct{ now time.Time }

func (c *testClock) Now() time.Time { return c.now }
func (c *testClock) After(time.Duration) <-chan time.Time {
	return make(chan time.Time)
}

func testConfig() Config {
	return Config{Clock: &testClock{now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}, Log: slog.New(slog.DiscardHandler)}
}

const sensorsTemplate = `data:
  tables:
    - tablename: readings
      columns:
        - {id: tsp, name: T, dataType: timestamp}
        - {id: v, name: V, dataType: numeric}
consumes:
  - app: "*"
`

// stores returns the two stores a registry is kept in, each new.
func stores(t *testing.T) map[string]func() Store {
	return map[string]func() Store{
		"memory": func() Store { return NewMemoryStore() },
		"folder": func() Store {
			d, err := datadir.Open(filepath.Join(t.TempDir(), "data"))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = d.Close() })
			st, err := OpenStore(d)
			if err != nil {
				t.Fatal(err)
			}
			return st
		},
	}
}

// must fails the test on err.
func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// world provisions one of everything the registry holds, auditing after
// each change, and returns the installation whose credential it rotated.
func world(t *testing.T, r *Registry) {
	t.Helper()
	audit := func(what string) {
		t.Helper()
		if err := r.Audit(); err != nil {
			t.Fatalf("after %s: %v", what, err)
		}
	}
	must(t, r.Update(func(s *State) error {
		pr, err := s.AddProject("plant", Spec{})
		if err != nil {
			return err
		}
		d1, err := s.AddDevice("press-1", Spec{Project: pr})
		if err != nil {
			return err
		}
		d2, err := s.AddDevice("press-2", Spec{Project: pr, Serial: "SER-2", SerialSet: true})
		if err != nil {
			return err
		}
		s.SetLocation(d1, 8.54, 47.37)
		if _, err := s.AddDevice("loose", Spec{}); err != nil { // project default
			return err
		}
		a, err := s.AddApp("sensors", sensorsTemplate, "", KeySpec(10))
		if err != nil {
			return err
		}
		b, err := s.AddApp("dashboard", sensorsTemplate, "", Spec{})
		if err != nil {
			return err
		}
		if _, err := s.Install(d1, a, wire.StageDev); err != nil {
			return err
		}
		g, err := s.AddGroup(pr, "line", Spec{}, []*Device{d1, d2})
		if err != nil {
			return err
		}
		s.AddGroupApp(g, &GroupApp{App: b, Release: s.NewestReady(b), Stage: wire.StageProd, Target: wire.AppStateRunning})
		u, err := s.AddUser("alice", "alice-token", map[*Project]string{pr: wire.RoleAdmin})
		if err != nil {
			return err
		}
		s.CreateApp(u, "mine", "an app of alice's")
		return s.Grant(pr, b, "sensors")
	}))
	audit("provisioning")
	must(t, r.Update(func(s *State) error {
		in := s.Installation(1, 10, wire.StageDev)
		_, _, err := s.Rotate(in)
		s.SetCurrent(in, wire.AppStateStarting)
		s.StartBuild(s.AppByName("sensors"), "2.0.0", sensorsTemplate, "", "")
		return err
	}))
	audit("rotation and build")
	r.Do(func(s *State) {
		d := s.DeviceBySerial("SER-2")
		g := s.GroupsOf(d)[0]
		s.RemoveMember(g, d)
		s.UpdateGroupApp(g, g.Apps[0], nil, wire.AppStateStopped)
	})
	audit("group changes")
	r.Do(func(s *State) {
		s.DeleteDevice(s.DeviceBySerial("SER-2"))
		if err := s.Revoke(s.ProjectByName("plant"), s.AppByName("dashboard"), "sensors"); err != nil {
			t.Error(err)
		}
		must(t, s.Grant(s.ProjectByName("plant"), s.AppByName("dashboard"), Wildcard))
	})
	audit("deletion and grants")
}

// snapshot is every kept document of a registry's world, by entity.
func snapshot(t *testing.T, r *Registry) map[string]string {
	t.Helper()
	out := map[string]string{}
	r.Do(func(s *State) {
		for _, rf := range s.refs() {
			doc, err := s.doc(rf)
			if err != nil {
				t.Fatal(err)
			}
			out[string(rf.kind)+" "+rf.id] = string(doc)
		}
	})
	return out
}

// TestReopenKeepsTheWorld: a registry opened again over the same store
// has the same world, down to serials, credential keys, tokens, epochs
// and releases, and the same per-app credentials.
func TestReopenKeepsTheWorld(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			st := newStore()
			r, err := Open(testConfig(), st)
			must(t, err)
			world(t, r)
			before := snapshot(t, r)
			var id1, secret1 string
			r.Do(func(s *State) { id1, secret1 = s.Installation(1, 10, wire.StageDev).Credential(2) })

			again, err := Open(testConfig(), st)
			must(t, err)
			if diff := cmp.Diff(before, snapshot(t, again)); diff != "" {
				t.Errorf("the reopened world differs (-before +after):\n%s", diff)
			}
			again.Do(func(s *State) {
				in := s.Installation(1, 10, wire.StageDev)
				if id, secret := in.Credential(in.Epoch); id != id1 || secret != secret1 {
					t.Errorf("credential %s %s, want %s %s", id, secret, id1, secret1)
				}
				if loc := s.Device(1).Location; loc == nil || loc.Long != 8.54 || loc.Lat != 47.37 || loc.Updated.IsZero() {
					t.Errorf("location %+v", loc)
				}
				if b := s.Building(s.AppByName("sensors")); b == nil || b.Version != "2.0.0" {
					t.Errorf("build in progress = %+v", b)
				}
				// New keys go on after the kept ones.
				d, err := s.AddDevice("press-3", Spec{Project: s.ProjectByName("plant")})
				must(t, err)
				if d.Key != 4 {
					t.Errorf("new device key %d, want 4 (press-2, key 2, was deleted: keys are not reused)", d.Key)
				}
			})
			if err := again.Audit(); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestTransactUndoes: a failed Transact leaves nothing, in memory or
// kept; a failed Update keeps what was done before the error.
func TestTransactUndoes(t *testing.T) {
	r := New(testConfig())
	boom := errors.New("refused")
	err := r.Transact(func(s *State) error {
		if _, err := s.AddProject("p", Spec{}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("transact: %v", err)
	}
	r.Do(func(s *State) {
		if s.ProjectByName("p") != nil {
			t.Error("the failed transaction's project is there")
		}
	})
	err = r.Update(func(s *State) error {
		if _, err := s.AddProject("q", Spec{}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	r.Do(func(s *State) {
		if s.ProjectByName("q") == nil {
			t.Error("the project made before the error is gone")
		}
	})
	if err := r.Audit(); err != nil {
		t.Error(err)
	}
}

// failingStore refuses every save while refuse is set.
type failingStore struct {
	*MemoryStore
	refuse bool
}

func (f *failingStore) Save(ctx context.Context, changes []Entity) error {
	if f.refuse {
		return errors.New("disk full")
	}
	return f.MemoryStore.Save(ctx, changes)
}

// TestUnkeptChangeUndone: a change the store refuses is an error of
// Update and is undone in memory, so that the next save that works does
// not keep it; entities it changed, removed or made come back as kept,
// in place, and a build it ended is building again.
func TestUnkeptChangeUndone(t *testing.T) {
	fs := &failingStore{MemoryStore: NewMemoryStore()}
	r, err := Open(testConfig(), fs)
	must(t, err)
	world(t, r)
	before := snapshot(t, r)
	var dev *Device
	var build *Release
	r.Do(func(s *State) {
		dev = s.Device(1)
		build = s.Building(s.AppByName("sensors"))
	})
	fs.refuse = true
	err = r.Update(func(s *State) error {
		if _, err := s.AddProject("p", Spec{}); err != nil {
			return err
		}
		dev.Name = "renamed"
		s.SetLocation(dev, 1, 2)
		g := s.GroupsOf(dev)[0]
		s.RemoveMember(g, dev)
		s.RemoveInstall(s.Installation(1, 10, wire.StageDev))
		s.DeleteDevice(s.Device(3))
		s.clock.(*testClock).now = build.FinishAt
		s.Settle()
		return nil
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("update: %v", err)
	}
	r.Do(func(s *State) {
		if len(s.dirty) != 0 {
			t.Errorf("the refused change is still marked: %v", s.dirty)
		}
		if s.Device(1) != dev || dev.Name != "press-1" || dev.Project != s.ProjectByName("plant") {
			t.Errorf("device 1 is %p %+v, want %p named press-1 in the kept project", s.Device(1), s.Device(1), dev)
		}
		if g := s.GroupsOf(dev); len(g) != 1 || g[0].Devices[0] != dev {
			t.Errorf("the group of device 1: %+v", g)
		}
		if in := s.Installation(1, 10, wire.StageDev); in == nil || in.Device != dev || in.App != s.AppByName("sensors") {
			t.Errorf("installation: %+v", in)
		}
		if s.Building(s.AppByName("sensors")) != build || build.Status != ReleaseBuilding {
			t.Errorf("the build ended by the refused settle: %+v", build)
		}
		select {
		case <-build.Done:
			t.Error("the build's Done is closed while it is building")
		default:
		}
	})
	if diff := cmp.Diff(before, snapshot(t, r)); diff != "" {
		t.Errorf("the world after the refused change differs (-before +after):\n%s", diff)
	}
	fs.refuse = false
	r.Do(func(s *State) { s.Settle() }) // the build ends again, and this time it is kept
	if err := r.Audit(); err != nil {
		t.Error(err)
	}
	r.Do(func(s *State) {
		if s.ProjectByName("p") != nil {
			t.Error("the refused project was kept later")
		}
		select {
		case <-build.Done:
		default:
			t.Error("the build ended but its Done is open")
		}
	})
}

// TestDamagedWorldRefused: a kept world whose references do not hold is
// refused naming the entity.
func TestDamagedWorldRefused(t *testing.T) {
	for _, tc := range []struct {
		e    Entity
		want string
	}{
		{Entity{Kind: KindDevice, ID: "3", Doc: []byte(`{"key":3,"name":"d","serial":"s","cred_key":"k","project":9}`)}, "kept device 3: names project 9, which is not kept"},
		{Entity{Kind: KindDevice, ID: "4", Doc: []byte(`{"key":3,"name":"d"}`)}, `kept device 4: the document is that of "3"`},
		{Entity{Kind: KindProject, ID: "1", Doc: []byte(`{"key":`)}, "kept project 1: document"},
		{Entity{Kind: KindInstallation, ID: "1/2/DEV", Doc: []byte(`{"device":1,"app":2,"stage":"DEV"}`)}, "names device 1 and app 2, which are not both kept"},
	} {
		st := NewMemoryStore()
		must(t, st.Save(context.Background(), []Entity{tc.e}))
		_, err := Open(testConfig(), st)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: %v, want %q", tc.e.Kind, tc.e.ID, err, tc.want)
		}
	}
}

// TestStoreConformance: both stores keep, replace and remove entities,
// and load what they keep.
func TestStoreConformance(t *testing.T) {
	for name, newStore := range stores(t) {
		t.Run(name, func(t *testing.T) {
			st := newStore()
			ctx := context.Background()
			must(t, st.Save(ctx, []Entity{{Kind: KindProject, ID: "1", Doc: []byte(`{"a":1}`)}, {Kind: KindUser, ID: "bob", Doc: []byte(`{"b":2}`)}}))
			must(t, st.Save(ctx, []Entity{{Kind: KindProject, ID: "1", Doc: []byte(`{"a":3}`)}, {Kind: KindUser, ID: "bob", Doc: nil}, {Kind: KindUser, ID: "eve", Doc: nil}}))
			got, err := st.Load()
			must(t, err)
			want := []Entity{{Kind: KindProject, ID: "1", Doc: []byte(`{"a":3}`)}}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported()); diff != "" {
				t.Errorf("load (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnchangedMarksNothing: setting what an entity already holds (the
// seed mark, roles, a grant's mark) is no change to keep, so a
// reconciliation with an unchanged configuration writes nothing.
func TestUnchangedMarksNothing(t *testing.T) {
	r := New(testConfig())
	world(t, r)
	r.Do(func(s *State) {
		pr := s.ProjectByName("plant")
		u := s.User("alice")
		s.SetSeeded(pr, true)
		s.SeededGrant(pr, s.AppByName("dashboard"), Wildcard)
		s.SetSeeded(u, true)
	})
	r.Do(func(s *State) {
		pr := s.ProjectByName("plant")
		u := s.User("alice")
		s.SetSeeded(pr, true)
		s.SetSeeded(u, true)
		if !s.SeededGrant(pr, s.AppByName("dashboard"), Wildcard) {
			t.Error("the wildcard grant is gone")
		}
		must(t, s.SetRoles(u, map[*Project]string{pr: wire.RoleAdmin}))
		s.SetMembers(s.Groups()[0], s.Groups()[0].Devices)
		if len(s.dirty) != 0 {
			t.Errorf("unchanged entities marked: %v", s.dirty)
		}
	})
}
