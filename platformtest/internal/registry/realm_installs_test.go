package registry

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/flockgo/ironflock/internal/wire"
)

// TestRealmInstalls: a realm's installations are found through an index
// that follows installs and removals: the first few by device key,
// whatever the order they were made in, with the count of all, also in a
// registry read again from its store.
func TestRealmInstalls(t *testing.T) {
	st := NewMemoryStore()
	r, err := Open(testConfig(), st)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(ins []*Installation) []int {
		var out []int
		for _, in := range ins {
			out = append(out, in.Device.Key)
		}
		return out
	}
	var realmName, prod string
	r.Do(func(s *State) {
		pr, err := s.AddProject("plant", Spec{})
		if err != nil {
			t.Fatal(err)
		}
		a, err := s.AddApp("meter", "", "", Spec{})
		if err != nil {
			t.Fatal(err)
		}
		order := rand.New(rand.NewPCG(1, 2)).Perm(40)
		for _, k := range order {
			d, err := s.AddDevice(fmt.Sprintf("d%d", k), Spec{Project: pr, Key: 100 + k, KeySet: true})
			if err != nil {
				t.Fatal(err)
			}
			in, err := s.Install(d, a, wire.StageDev)
			if err != nil {
				t.Fatal(err)
			}
			realmName = in.Realm
			if k%10 == 0 {
				pin, err := s.Install(d, a, wire.StageProd)
				if err != nil {
					t.Fatal(err)
				}
				prod = pin.Realm
			}
		}
		first, total := s.RealmInstalls(realmName, 3)
		if total != 40 || !slices.Equal(keys(first), []int{100, 101, 102}) {
			t.Errorf("the first 3 of the realm: %v of %d, want [100 101 102] of 40", keys(first), total)
		}
		all, total := s.RealmInstalls(realmName, -1)
		if total != 40 || len(all) != 40 || !slices.IsSorted(keys(all)) || all[0].Device.Key != 100 {
			t.Errorf("all of the realm: %v of %d", keys(all), total)
		}
		if first, total := s.RealmInstalls(realmName, 0); first != nil || total != 40 {
			t.Errorf("none of the realm: %v of %d", keys(first), total)
		}
		if first, total := s.RealmInstalls(prod, 10); total != 4 || !slices.Equal(keys(first), []int{100, 110, 120, 130}) {
			t.Errorf("the prod realm: %v of %d", keys(first), total)
		}
		s.RemoveInstall(all[0])
		s.RemoveInstall(all[2])
		if first, total := s.RealmInstalls(realmName, 2); total != 38 || !slices.Equal(keys(first), []int{101, 103}) {
			t.Errorf("after two removals: %v of %d, want [101 103] of 38", keys(first), total)
		}
		if first, total := s.RealmInstalls("realm-9-9-DEV", 5); first != nil || total != 0 {
			t.Errorf("a realm without installations: %v of %d", keys(first), total)
		}
	})
	if err := r.Audit(); err != nil {
		t.Fatal(err)
	}
	again, err := Open(testConfig(), st)
	if err != nil {
		t.Fatal(err)
	}
	again.View(func(s *State) {
		if first, total := s.RealmInstalls(realmName, 2); total != 38 || !slices.Equal(keys(first), []int{101, 103}) {
			t.Errorf("the registry read again: %v of %d, want [101 103] of 38", keys(first), total)
		}
	})
}

// TestInstallsPerApp: the installations are counted per app, removals
// and both stages included, as the ordered list counts them.
func TestInstallsPerApp(t *testing.T) {
	r, err := Open(testConfig(), NewMemoryStore())
	must(t, err)
	must(t, r.Update(func(s *State) error {
		pr, err := s.AddProject("plant", Spec{})
		if err != nil {
			return err
		}
		a, err := s.AddApp("meter", "", "", Spec{})
		if err != nil {
			return err
		}
		b, err := s.AddApp("panel", "", "", Spec{})
		if err != nil {
			return err
		}
		for i := range 7 {
			d, err := s.AddDevice(fmt.Sprintf("d%d", i), Spec{Project: pr})
			if err != nil {
				return err
			}
			if _, err := s.Install(d, a, wire.StageDev); err != nil {
				return err
			}
			if i%2 == 0 {
				if _, err := s.Install(d, a, wire.StageProd); err != nil {
					return err
				}
				if _, err := s.Install(d, b, wire.StageDev); err != nil {
					return err
				}
			}
		}
		s.RemoveInstall(s.Installation(s.DeviceNamed(pr, "d0").Key, b.Key, wire.StageDev))
		return nil
	}))
	r.View(func(s *State) {
		want := map[int]int{}
		for _, in := range s.Installs() {
			want[in.App.Key]++
		}
		got := s.InstallsPerApp()
		if len(got) != 2 || got[s.AppByName("meter").Key] != 11 || got[s.AppByName("panel").Key] != 3 || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("per app %v, want meter 11 and panel 3 as the list counts: %v", got, want)
		}
	})
}
