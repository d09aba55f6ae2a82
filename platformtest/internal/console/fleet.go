// This file serves the overview and the fleet:
//
//	GET /              counts, the mode, recent actions
//	GET /fleet         projects, one page of the devices (?q= search, ?page=,
//	                   ?group=KEY: the members of a group), groups with the
//	                   first of their members (capped.go), apps, grants
//	GET /devices/{key} one device: its installations and their environment
//	                   (?show=REALM reveals that installation's secret)
//
// An app's page is in apppage.go.

package console

import (
	"maps"
	"net/http"
	"net/url"
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
	Devices someDevices // the first members (capped.go)
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
	Installations []installView // one page of them (the app's page); none on the fleet page
	InstallCount  int
	Realms        []string // the realms of its installations
	Tables        []string
	Agents        bool
	Files         []string
}

type projectView struct {
	Key         int
	Name        string
	DeviceCount int
	Devices     []deviceView // those of the page shown
	Groups      []groupView
}

type grantView struct{ Project, Consumer, Provider string }

type fleetView struct {
	Projects     []projectView
	Pager        pager      // pager.go: the devices shown, among all
	Group        *groupView // the group whose members are listed (?group=); nil: all devices
	Apps         []appView
	Grants       []grantView
	Map          worldMap // locations.go; drawn for the fleet page only
	LocationNote string
}

// liveness is who is online and in session, read from the router before
// the registry's lock is taken.
type liveness struct {
	online   map[int]bool
	perRealm map[string]map[int]int // realm → device → sessions
	withheld map[string]bool
}

func (c *Console) liveness() liveness {
	l := liveness{online: c.cfg.Router.Online(), perRealm: map[string]map[int]int{}, withheld: map[string]bool{}}
	for _, s := range c.cfg.Router.Sessions() {
		if l.perRealm[s.Realm] == nil {
			l.perRealm[s.Realm] = map[int]int{}
		}
		l.perRealm[s.Realm][s.DeviceKey]++
	}
	for _, r := range c.cfg.Router.Withheld() {
		l.withheld[r] = true
	}
	return l
}

// install returns the view of an installation.
func (l liveness) install(in *registry.Installation) installView {
	iv := installView{DeviceKey: in.Device.Key, Device: in.Device.Name, AppKey: in.App.Key, App: in.App.Name,
		Stage: in.Stage, Realm: in.Realm, Target: in.Target, Current: in.Current,
		Withheld: l.withheld[in.Realm], Sessions: l.perRealm[in.Realm][in.Device.Key]}
	if in.Release != nil {
		iv.Release = in.Release.Version
	}
	if in.Group != nil {
		iv.Group = in.Group.Name
	}
	return iv
}

// device returns the view of a device with its installations.
func (l liveness) device(s *registry.State, d *registry.Device) deviceView {
	dv := deviceView{Key: d.Key, Name: d.Name, Serial: d.Serial, Project: d.Project.Name,
		ProjectKey: d.Project.Key, Online: l.online[d.Key], Location: locationOf(d)}
	for _, g := range s.GroupsOf(d) {
		dv.Groups = append(dv.Groups, g.Name)
	}
	for _, in := range s.DeviceInstalls(d) {
		dv.Installations = append(dv.Installations, l.install(in))
	}
	return dv
}

// snapshot reads the fleet from the registry, with who is online: the
// projects with their groups, one page of the devices matching the search
// of query (pager.go), the apps with how many installations each has,
// and the grants. problem says why the query cannot be answered (a
// ?group= that names no group).
func (c *Console) snapshot(query url.Values) (v fleetView, problem string) {
	l := c.liveness()
	c.cfg.Registry.Do(func(s *registry.State) {
		s.Settle()
		var members map[int]bool // nil: every device
		if gs := query.Get("group"); gs != "" {
			key, err := strconv.Atoi(gs)
			g := s.Group(key)
			if err != nil || g == nil {
				problem = "There is no group with key " + strconv.Quote(gs) + " (parameter group)."
				return
			}
			members = make(map[int]bool, len(g.Devices))
			for _, d := range g.Devices {
				members[d.Key] = true
			}
			v.Group = &groupView{Key: g.Key, Name: g.Name, Project: g.Project.Name}
		}
		byProject := map[int]*projectView{}
		for _, pr := range s.Projects() {
			v.Projects = append(v.Projects, projectView{Key: pr.Key, Name: pr.Name})
		}
		for i := range v.Projects {
			byProject[v.Projects[i].Key] = &v.Projects[i]
		}
		all := s.Devices()
		q := strings.TrimSpace(query.Get("q"))
		var matches []*registry.Device
		listed := 0
		for _, d := range all {
			if pv := byProject[d.Project.Key]; pv != nil {
				pv.DeviceCount++
			}
			if members != nil && !members[d.Key] {
				continue
			}
			listed++
			if search(q, d.Name, d.Serial, d.Key) {
				matches = append(matches, d)
			}
		}
		var lo, hi int
		v.Pager, lo, hi = newPager(query, listed, len(matches))
		for _, d := range matches[lo:hi] {
			if pv := byProject[d.Project.Key]; pv != nil {
				pv.Devices = append(pv.Devices, l.device(s, d))
			}
		}
		for _, g := range s.Groups() {
			gv := groupView{Key: g.Key, Name: g.Name, Project: g.Project.Name, Devices: groupDevices(g)}
			for _, ga := range g.Apps {
				gv.Apps = append(gv.Apps, ga.App.Name+" "+ga.Stage+" ("+strings.ToLower(ga.Target)+")")
			}
			if pv := byProject[g.Project.Key]; pv != nil {
				pv.Groups = append(pv.Groups, gv)
			}
		}
		counts := s.InstallsPerApp()
		for _, a := range s.Apps() {
			v.Apps = append(v.Apps, appOf(s, a, counts[a.Key]))
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
	return v, problem
}

// appOf returns the view of app a, without its installations.
func appOf(s *registry.State, a *registry.App, installs int) appView {
	av := appView{Key: a.Key, Name: a.Name, Description: a.Description, Agents: strings.TrimSpace(a.AITemplate) != "",
		InstallCount: installs}
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
	for _, ri := range s.Realms() {
		if ri.App == a.Key && s.RealmInUse(ri.Name) {
			av.Realms = append(av.Realms, ri.Name)
		}
	}
	return av
}

type overviewView struct {
	Projects, Devices, Online, Apps, Installations, Realms, Sessions int
	Recorded                                                         router.RecordingStats
	Withheld, Refusing                                               []string
	Actions                                                          []Action
	Storage                                                          storageView // storage.go
}

func (c *Console) overview(w http.ResponseWriter, r *http.Request) {
	online := c.cfg.Router.Online()
	v := overviewView{Sessions: len(c.cfg.Router.Sessions()),
		Withheld: c.cfg.Router.Withheld(), Refusing: c.refusing(), Actions: c.Actions(), Storage: c.storage()}
	c.cfg.Registry.Do(func(s *registry.State) { // counts only: no list of the fleet is made
		v.Projects, v.Apps, v.Installations = len(s.Projects()), len(s.Apps()), s.Installations()
		for _, d := range s.Devices() {
			v.Devices++
			if online[d.Key] {
				v.Online++
			}
		}
		for _, ri := range s.Realms() {
			if s.RealmInUse(ri.Name) {
				v.Realms++
			}
		}
	})
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
	v, problem := c.snapshot(r.URL.Query())
	if problem != "" {
		c.fail(w, r, http.StatusNotFound, problem)
		return
	}
	v.Map = fleetMap(v, r.URL.Query())
	c.render(w, "fleet", "Fleet", "/fleet", v)
}

type deviceDetail struct {
	Device       deviceView
	LocationNote string
}

func (c *Console) device(w http.ResponseWriter, r *http.Request) {
	key, _ := strconv.Atoi(r.PathValue("key"))
	l := c.liveness()
	var d deviceView
	found := false
	c.cfg.Registry.Do(func(s *registry.State) {
		s.Settle()
		if dev := s.Device(key); dev != nil {
			d, found = l.device(s, dev), true
		}
	})
	if !found {
		c.fail(w, r, http.StatusNotFound, "There is no device with key "+r.PathValue("key")+".")
		return
	}
	show := r.URL.Query().Get("show")
	for i := range d.Installations {
		in := &d.Installations[i]
		in.Env, in.SecretRevealable = c.environment(in, show == in.Realm)
	}
	if show != "" {
		c.cfg.Log.Info("console revealed an app secret", "device", d.Name, "realm", show)
	}
	c.render(w, "device", "Device "+d.Name, "/fleet", deviceDetail{Device: d, LocationNote: c.locationNote()})
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
