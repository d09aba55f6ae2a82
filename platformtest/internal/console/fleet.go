// This file serves the overview and the fleet:
//
//	GET /              counts, the mode, recent actions
//	GET /fleet         projects, devices, groups, apps, releases, installations, grants
//	GET /devices/{key} one device: its installations and their environment
//	                   (?show=REALM reveals that installation's secret)
//	GET /apps/{key}    one app: releases, installations, tables, agents

package console

import (
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/platformtest/internal/router"
)

// locationNote says where the locations come from, or that they do not.
func (c *Console) locationNote() string {
	if c.cfg.NoLocationService {
		return "This platform runs without the location service (WithoutLocationService): " +
			"ironflock.location_service.update answers wamp.error.no_such_procedure, so no device has a location."
	}
	return "A device's apps set its position with SetDeviceLocation (ironflock.location_service.update); " +
		"the platform keeps the latest one and when it was set, no history."
}

type deviceView struct {
	Key           int
	Name, Serial  string
	Project       string
	ProjectKey    int
	Online        bool
	Location      *locationView // nil before the first update (locations.go)
	Groups        []string
	Installations []installView
}

type installView struct {
	DeviceKey        int
	Device           string
	AppKey           int
	App              string
	Stage, Realm     string
	Release          string // version
	Target, Current  string
	Group            string // inherited from
	Withheld         bool
	Sessions         int
	Env              []envVar
	SecretRevealable bool
}

type envVar struct {
	Name, Value string
	Secret      bool // masked unless revealed
}

type groupView struct {
	Key     int
	Name    string
	Project string
	Devices []string
	Apps    []string
}

type releaseView struct {
	Key             int
	Version, Status string
	Err             string
	Created         time.Time
}

type appView struct {
	Key           int
	Name          string
	Description   string
	Releases      []releaseView
	Installations []installView
	Tables        []string
	Agents        bool
	Files         []string
}

type projectView struct {
	Key     int
	Name    string
	Devices []deviceView
	Groups  []groupView
}

type grantView struct{ Project, Consumer, Provider string }

type fleetView struct {
	Projects     []projectView
	Apps         []appView
	Grants       []grantView
	Map          worldMap // locations.go; drawn for the fleet page only
	LocationNote string
}

// snapshot reads the fleet from the registry, with who is online.
func (c *Console) snapshot() fleetView {
	online := c.cfg.Router.Online()
	perRealm := map[string]map[int]int{} // realm → device → sessions
	for _, s := range c.cfg.Router.Sessions() {
		if perRealm[s.Realm] == nil {
			perRealm[s.Realm] = map[int]int{}
		}
		perRealm[s.Realm][s.DeviceKey]++
	}
	withheld := map[string]bool{}
	for _, r := range c.cfg.Router.Withheld() {
		withheld[r] = true
	}
	var v fleetView
	c.cfg.Registry.Do(func(s *registry.State) {
		s.Settle()
		inst := func(in *registry.Installation) installView {
			iv := installView{DeviceKey: in.Device.Key, Device: in.Device.Name, AppKey: in.App.Key, App: in.App.Name,
				Stage: in.Stage, Realm: in.Realm, Target: in.Target, Current: in.Current,
				Withheld: withheld[in.Realm], Sessions: perRealm[in.Realm][in.Device.Key]}
			if in.Release != nil {
				iv.Release = in.Release.Version
			}
			if in.Group != nil {
				iv.Group = in.Group.Name
			}
			return iv
		}
		byProject := map[int]*projectView{}
		for _, pr := range s.Projects() {
			v.Projects = append(v.Projects, projectView{Key: pr.Key, Name: pr.Name})
		}
		for i := range v.Projects {
			byProject[v.Projects[i].Key] = &v.Projects[i]
		}
		for _, d := range s.Devices() {
			dv := deviceView{Key: d.Key, Name: d.Name, Serial: d.Serial, Project: d.Project.Name,
				ProjectKey: d.Project.Key, Online: online[d.Key], Location: locationOf(d)}
			for _, g := range s.GroupsOf(d) {
				dv.Groups = append(dv.Groups, g.Name)
			}
			for _, in := range s.DeviceInstalls(d) {
				dv.Installations = append(dv.Installations, inst(in))
			}
			if pv := byProject[d.Project.Key]; pv != nil {
				pv.Devices = append(pv.Devices, dv)
			}
		}
		for _, g := range s.Groups() {
			gv := groupView{Key: g.Key, Name: g.Name, Project: g.Project.Name}
			for _, d := range g.Devices {
				gv.Devices = append(gv.Devices, d.Name)
			}
			for _, ga := range g.Apps {
				gv.Apps = append(gv.Apps, ga.App.Name+" "+ga.Stage+" ("+strings.ToLower(ga.Target)+")")
			}
			if pv := byProject[g.Project.Key]; pv != nil {
				pv.Groups = append(pv.Groups, gv)
			}
		}
		for _, a := range s.Apps() {
			av := appView{Key: a.Key, Name: a.Name, Description: a.Description, Agents: strings.TrimSpace(a.AITemplate) != ""}
			for _, r := range s.ReleasesOf(a) {
				av.Releases = append(av.Releases, releaseView{Key: r.Key, Version: r.Version, Status: r.Status,
					Err: r.Err, Created: r.Created})
			}
			if tpl, err := registry.ParseDataTemplate(a.DataTemplate); err == nil && tpl != nil {
				for _, t := range tpl.Tables {
					av.Tables = append(av.Tables, t.Name)
				}
				av.Files = tpl.NamespaceNames()
			}
			v.Apps = append(v.Apps, av)
		}
		for _, d := range s.Devices() {
			for _, in := range s.DeviceInstalls(d) {
				for i := range v.Apps {
					if v.Apps[i].Key == in.App.Key {
						v.Apps[i].Installations = append(v.Apps[i].Installations, inst(in))
					}
				}
			}
		}
		for _, g := range s.Grants() {
			consumer := ""
			if g.Consumer != nil {
				consumer = g.Consumer.Name
			}
			v.Grants = append(v.Grants, grantView{Project: g.Project.Name, Consumer: consumer, Provider: g.Provider})
		}
	})
	v.LocationNote = c.locationNote()
	return v
}

type overviewView struct {
	Projects, Devices, Online, Apps, Installations, Realms, Sessions int
	Recorded                                                         router.RecordingStats
	Withheld, Refusing                                               []string
	Actions                                                          []Action
	Storage                                                          storageView // storage.go
}

func (c *Console) overview(w http.ResponseWriter, r *http.Request) {
	f := c.snapshot()
	v := overviewView{Projects: len(f.Projects), Apps: len(f.Apps), Sessions: len(c.cfg.Router.Sessions()),
		Withheld: c.cfg.Router.Withheld(), Refusing: c.refusing(), Actions: c.Actions(), Storage: c.storage()}
	realms := map[string]bool{}
	for _, p := range f.Projects {
		v.Devices += len(p.Devices)
		for _, d := range p.Devices {
			if d.Online {
				v.Online++
			}
			v.Installations += len(d.Installations)
			for _, in := range d.Installations {
				realms[in.Realm] = true
			}
		}
	}
	v.Realms = len(realms)
	v.Recorded = c.cfg.Router.RecordingStats()
	if len(v.Actions) > 10 {
		v.Actions = v.Actions[:10]
	}
	c.render(w, "overview", "Overview", "/", v)
}

func (c *Console) refusing() []string {
	if c.cfg.Refusing == nil {
		return nil
	}
	return c.cfg.Refusing()
}

func (c *Console) fleet(w http.ResponseWriter, r *http.Request) {
	v := c.snapshot()
	v.Map = fleetMap(v, r.URL.Query())
	c.render(w, "fleet", "Fleet", "/fleet", v)
}

type deviceDetail struct {
	Device       deviceView
	LocationNote string
}

func (c *Console) device(w http.ResponseWriter, r *http.Request) {
	key, _ := strconv.Atoi(r.PathValue("key"))
	f := c.snapshot()
	for _, p := range f.Projects {
		for _, d := range p.Devices {
			if d.Key != key {
				continue
			}
			show := r.URL.Query().Get("show")
			for i := range d.Installations {
				in := &d.Installations[i]
				in.Env, in.SecretRevealable = c.environment(in, show == in.Realm)
			}
			if show != "" {
				c.cfg.Log.Info("console revealed an app secret", "device", d.Name, "realm", show)
			}
			c.render(w, "device", "Device "+d.Name, "/fleet", deviceDetail{Device: d, LocationNote: f.LocationNote})
			return
		}
	}
	c.fail(w, r, http.StatusNotFound, "There is no device with key "+r.PathValue("key")+".")
}

// environment returns an installation's environment, sorted, the secret
// masked unless reveal.
func (c *Console) environment(in *installView, reveal bool) ([]envVar, bool) {
	if c.cfg.Env == nil {
		return nil, false
	}
	env := c.cfg.Env(in.DeviceKey, in.AppKey, in.Stage)
	var out []envVar
	hasSecret := false
	for _, k := range slices.Sorted(maps.Keys(env)) {
		ev := envVar{Name: k, Value: env[k]}
		if k == wire.EnvAppAuthSecret {
			hasSecret = true
			if !reveal {
				ev.Value, ev.Secret = "", true
			}
		}
		out = append(out, ev)
	}
	return out, hasSecret && !reveal
}

func (c *Console) app(w http.ResponseWriter, r *http.Request) {
	key, _ := strconv.Atoi(r.PathValue("key"))
	for _, a := range c.snapshot().Apps {
		if a.Key == key {
			c.render(w, "app", "App "+a.Name, "/fleet", appPage{appView: a, TableLinks: tableLinks(a)})
			return
		}
	}
	c.fail(w, r, http.StatusNotFound, "There is no app with key "+r.PathValue("key")+".")
}
