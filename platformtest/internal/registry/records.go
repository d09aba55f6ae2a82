// This file holds the documents the registry keeps (store.go): each
// entity encoded as JSON, with its own fields by their json tags and its
// references to other entities as their keys, and the decoding of a whole
// kept world, which checks every reference. Because an entity's own
// fields are encoded through its type, a field added to Device (or any
// entity) with a json tag is kept without a change here, and documents
// kept before it read as its zero value.

package registry

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// ref names a kept entity.
type ref struct {
	kind Kind
	id   string
}

type deviceDoc struct {
	*Device
	Project int `json:"project"`
}

type appDoc struct {
	*App
	Owner string `json:"owner,omitempty"` // user name
}

type releaseDoc struct {
	*Release
	App     int    `json:"app"`
	Outcome string `json:"outcome,omitempty"`
	OutErr  string `json:"out_err,omitempty"`
}

type groupDoc struct {
	*Group
	Project int           `json:"project"`
	Devices []int         `json:"devices"`
	Apps    []groupAppDoc `json:"apps"`
}

type groupAppDoc struct {
	App     int    `json:"app"`
	Release int    `json:"release,omitempty"`
	Stage   string `json:"stage"`
	Target  string `json:"target"`
}

type installDoc struct {
	*Installation
	Device  int `json:"device"`
	App     int `json:"app"`
	Release int `json:"release,omitempty"`
	Group   int `json:"group,omitempty"`
}

type realmDoc struct {
	Name  string `json:"name"`
	Swarm int    `json:"swarm"`
	App   int    `json:"app"`
	Stage string `json:"stage"`
}

type grantDoc struct {
	Swarm    int    `json:"swarm"`
	Consumer int    `json:"consumer"`
	Provider string `json:"provider"`
	Seeded   bool   `json:"seeded,omitempty"`
}

type counterDoc struct {
	Next int `json:"next"`
}

func keyID(k int) string { return strconv.Itoa(k) }

func instID(k instKey) string {
	b := make([]byte, 0, 32)
	b = strconv.AppendInt(b, int64(k.device), 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(k.app), 10)
	b = append(b, '/')
	return string(append(b, k.stage...))
}

func grantID(k grantKey) string { return fmt.Sprintf("%d/%d/%s", k.swarm, k.consumer, k.provider) }

func keyOf[T any](p *T, key func(*T) int) int {
	if p == nil {
		return 0
	}
	return key(p)
}

func releaseKey(r *Release) int { return r.Key }
func groupKey(g *Group) int     { return g.Key }

// doc encodes the entity r names as it is now; nil when it is gone.
func (s *State) doc(r ref) ([]byte, error) {
	var v any
	switch r.kind {
	case KindCounter:
		if n, ok := s.next[r.id]; ok {
			v = counterDoc{Next: n}
		}
	case KindProject:
		if pr := s.projects[atoi(r.id)]; pr != nil {
			v = pr
		}
	case KindUser:
		if u := s.users[r.id]; u != nil {
			v = u
		}
	case KindApp:
		if a := s.apps[atoi(r.id)]; a != nil {
			d := appDoc{App: a}
			if a.Owner != nil {
				d.Owner = a.Owner.Name
			}
			v = d
		}
	case KindRelease:
		if rel := s.releases[atoi(r.id)]; rel != nil {
			v = releaseDoc{Release: rel, App: rel.App.Key, Outcome: rel.outcome, OutErr: rel.outErr}
		}
	case KindDevice:
		if d := s.devices[atoi(r.id)]; d != nil {
			v = deviceDoc{Device: d, Project: d.Project.Key}
		}
	case KindGroup:
		if g := s.groups[atoi(r.id)]; g != nil {
			d := groupDoc{Group: g, Project: g.Project.Key, Devices: []int{}, Apps: []groupAppDoc{}}
			for _, m := range g.Devices {
				d.Devices = append(d.Devices, m.Key)
			}
			for _, ga := range g.Apps {
				d.Apps = append(d.Apps, groupAppDoc{App: ga.App.Key, Release: keyOf(ga.Release, releaseKey), Stage: ga.Stage, Target: ga.Target})
			}
			v = d
		}
	case KindInstallation:
		if k, ok := parseInstID(r.id); ok {
			if in := s.installs[k]; in != nil {
				v = installDoc{Installation: in, Device: in.Device.Key, App: in.App.Key,
					Release: keyOf(in.Release, releaseKey), Group: keyOf(in.Group, groupKey)}
			}
		}
	case KindRealm:
		if ri, ok := s.realms[r.id]; ok {
			v = realmDoc{Name: ri.Name, Swarm: ri.Swarm, App: ri.App, Stage: ri.Stage}
		}
	case KindGrant:
		if k, ok := parseGrantID(r.id); ok {
			if seeded, ok := s.grants[k]; ok {
				v = grantDoc{Swarm: k.swarm, Consumer: k.consumer, Provider: k.provider, Seeded: seeded}
			}
		}
	default:
		return nil, fmt.Errorf("registry: unknown kind %q", r.kind)
	}
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// refs returns every entity of the state.
func (s *State) refs() []ref {
	var out []ref
	for kind := range s.next {
		out = append(out, ref{KindCounter, kind})
	}
	for k := range s.projects {
		out = append(out, ref{KindProject, keyID(k)})
	}
	for name := range s.users {
		out = append(out, ref{KindUser, name})
	}
	for k := range s.apps {
		out = append(out, ref{KindApp, keyID(k)})
	}
	for k := range s.releases {
		out = append(out, ref{KindRelease, keyID(k)})
	}
	for k := range s.devices {
		out = append(out, ref{KindDevice, keyID(k)})
	}
	for k := range s.groups {
		out = append(out, ref{KindGroup, keyID(k)})
	}
	for k := range s.installs {
		out = append(out, ref{KindInstallation, instID(k)})
	}
	for name := range s.realms {
		out = append(out, ref{KindRealm, name})
	}
	for k := range s.grants {
		out = append(out, ref{KindGrant, grantID(k)})
	}
	return out
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil {
		return -1
	}
	return n
}

func parseInstID(id string) (instKey, bool) {
	parts := strings.Split(id, "/")
	if len(parts) != 3 {
		return instKey{}, false
	}
	d, a := atoi(parts[0]), atoi(parts[1])
	return instKey{d, a, parts[2]}, d > 0 && a > 0
}

func parseGrantID(id string) (grantKey, bool) {
	parts := strings.SplitN(id, "/", 3)
	if len(parts) != 3 {
		return grantKey{}, false
	}
	sw, c := atoi(parts[0]), atoi(parts[1])
	return grantKey{sw, c, parts[2]}, sw > 0 && c > 0
}

// loadOne links the decoded document v of e (load.go) into the state,
// checking its references.
func (s *State) loadOne(e Entity, v any) error {
	switch e.Kind {
	case KindCounter:
		d := v.(*counterDoc)
		s.next[e.ID] = d.Next
	case KindProject:
		pr := v.(*Project)
		s.projects[pr.Key] = pr
	case KindUser:
		u := v.(*User)
		if u.Projects == nil {
			u.Projects = map[int]string{}
		}
		for k := range u.Projects {
			if s.projects[k] == nil {
				return fmt.Errorf("names project %d, which is not kept", k)
			}
		}
		s.users[u.Name] = u
	case KindApp:
		d := v.(*appDoc)
		if d.Owner != "" {
			if d.App.Owner = s.users[d.Owner]; d.App.Owner == nil {
				return fmt.Errorf("names owner %q, a user who is not kept", d.Owner)
			}
		}
		s.apps[d.Key] = d.App
	case KindRelease:
		d := v.(*releaseDoc)
		r := d.Release
		if r.App = s.apps[d.App]; r.App == nil {
			return fmt.Errorf("names app %d, which is not kept", d.App)
		}
		r.outcome, r.outErr, r.Done = d.Outcome, d.OutErr, make(chan struct{})
		if r.Status != ReleaseBuilding {
			close(r.Done)
		}
		s.releases[r.Key] = r
	case KindDevice:
		d := v.(*deviceDoc)
		if d.Device.Project = s.projects[d.Project]; d.Device.Project == nil {
			return fmt.Errorf("names project %d, which is not kept", d.Project)
		}
		if d.Serial == "" || d.CredKey == "" {
			return fmt.Errorf("has no serial or no credential key")
		}
		if s.bySerial[d.Serial] != nil || s.byName[deviceName{d.Device.Project, d.Name}] != nil {
			return fmt.Errorf("its serial or its name in its project is another kept device's")
		}
		s.putDevice(d.Device)
	case KindGroup:
		return s.loadGroup(v.(*groupDoc))
	case KindInstallation:
		return s.loadInstallation(v.(*installDoc))
	case KindRealm:
		d := v.(*realmDoc)
		ri := realm.NewInfo(d.Swarm, d.App, d.Stage)
		if d.Name != ri.Name {
			return fmt.Errorf("realm %q is not that of swarm %d, app %d, %s", d.Name, d.Swarm, d.App, d.Stage)
		}
		s.realms[ri.Name] = ri
	case KindGrant:
		d := v.(*grantDoc)
		if s.projects[d.Swarm] == nil || s.apps[d.Consumer] == nil {
			return fmt.Errorf("names project %d and app %d, which are not both kept", d.Swarm, d.Consumer)
		}
		s.grants[grantKey{d.Swarm, d.Consumer, d.Provider}] = d.Seeded
	default:
		return fmt.Errorf("a kind this flockd does not know")
	}
	return nil
}

func (s *State) loadGroup(d *groupDoc) error {
	g := d.Group
	if g.Project = s.projects[d.Project]; g.Project == nil {
		return fmt.Errorf("names project %d, which is not kept", d.Project)
	}
	for _, k := range d.Devices {
		m := s.devices[k]
		if m == nil || m.Project != g.Project {
			return fmt.Errorf("names device %d, which is not kept in project %d", k, d.Project)
		}
		g.Devices = append(g.Devices, m)
	}
	for _, ga := range d.Apps {
		a := s.apps[ga.App]
		if a == nil {
			return fmt.Errorf("names app %d, which is not kept", ga.App)
		}
		var rel *Release
		if ga.Release != 0 {
			if rel = s.releases[ga.Release]; rel == nil || rel.App != a {
				return fmt.Errorf("names release %d of app %d, which is not kept", ga.Release, ga.App)
			}
		}
		g.Apps = append(g.Apps, &GroupApp{App: a, Release: rel, Stage: ga.Stage, Target: ga.Target})
	}
	s.groups[g.Key] = g
	return nil
}

func (s *State) loadInstallation(d *installDoc) error {
	in := d.Installation
	if in.Device, in.App = s.devices[d.Device], s.apps[d.App]; in.Device == nil || in.App == nil {
		return fmt.Errorf("names device %d and app %d, which are not both kept", d.Device, d.App)
	}
	if want := wire.Realm(in.Device.Project.Key, in.App.Key, in.Stage); in.Realm != want {
		return fmt.Errorf("realm %q, want %q", in.Realm, want)
	}
	if in.Epoch < 1 {
		return fmt.Errorf("credential epoch %d: epochs start at 1", in.Epoch)
	}
	if d.Release != 0 {
		if in.Release = s.releases[d.Release]; in.Release == nil || in.Release.App != in.App {
			return fmt.Errorf("names release %d of app %d, which is not kept", d.Release, d.App)
		}
	}
	if d.Group != 0 {
		if in.Group = s.groups[d.Group]; in.Group == nil {
			return fmt.Errorf("names group %d, which is not kept", d.Group)
		}
	}
	s.putInstall(instKey{d.Device, d.App, in.Stage}, in)
	return nil
}
