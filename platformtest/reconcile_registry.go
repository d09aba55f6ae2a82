// This file holds the registry pass of Reconcile (reconcile.go): under
// the registry's lock, in one transaction, the projects with their devices
// and groups, the apps, the installations, the users and the grants of a
// seed are matched with what the registry holds, added, changed or
// removed, each change with a log line. It serves no URI.

package platformtest

import (
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// reconciler is one registry pass.
type reconciler struct {
	p         *Platform
	st        *registry.State
	seed      *Seed
	allowDrop bool

	res         *SeedResult
	fresh       map[int]bool // seed installations made by this pass, by index
	forgotten   []string     // realms that went, with their data
	migrations  []migration  // realms whose data template changed
	retemplated []string     // apps given new templates, by name
	logs        []func()     // log lines of what the pass made, once it is kept
	gone        map[string]bool
	projects    map[string]*registry.Project
	devices     map[string]map[string]*registry.Device // project → device name → device
	apps        map[string]*registry.App               // lower-case name
}

type migration struct {
	realm  string
	change realm.TemplateChange
}

func (rc *reconciler) run() error {
	rc.res = &SeedResult{Tokens: map[string]string{}}
	rc.fresh, rc.gone = map[int]bool{}, map[string]bool{}
	rc.projects, rc.devices, rc.apps = map[string]*registry.Project{}, map[string]map[string]*registry.Device{}, map[string]*registry.App{}
	if err := rc.checkTemplates(); err != nil {
		return err
	}
	inUse := map[string]bool{}
	for _, ri := range rc.st.Realms() {
		inUse[ri.Name] = rc.st.RealmInUse(ri.Name)
	}
	for _, step := range []func() error{rc.reconcileProjects, rc.reconcileApps, rc.reconcileInstallations, rc.reconcileUsers, rc.reconcileGrants} {
		if err := step(); err != nil {
			return err
		}
	}
	for _, ri := range rc.st.Realms() {
		if (inUse[ri.Name] || rc.gone[ri.Name]) && !rc.st.RealmInUse(ri.Name) {
			rc.st.ForgetRealm(ri.Name)
			rc.forgotten = append(rc.forgotten, ri.Name)
			rc.p.log.Warn("realm removed with its data: no installation of the configuration uses it any more", "realm", ri.Name)
		}
	}
	return nil
}

// checkTemplates refuses data template changes that drop data, unless
// allowed, before anything changes.
func (rc *reconciler) checkTemplates() error {
	var refused []string
	for _, sa := range rc.seed.Apps {
		a := rc.st.AppByName(sa.Name)
		if a == nil || (sa.AppKey != 0 && sa.AppKey != a.Key) || a.DataTemplate == sa.DataTemplate {
			continue
		}
		ch, err := templateChange(a.DataTemplate, sa.DataTemplate)
		if err != nil {
			return fmt.Errorf("app %q: %w", sa.Name, err)
		}
		if ch.Drops() && !rc.allowDrop {
			refused = append(refused, fmt.Sprintf("app %q: %s", sa.Name, ch.Dropped()))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("the configuration changes data templates in a way that drops kept data (%s); nothing is dropped silently: "+
			"restore them in the configuration, or allow the drop (flockd -allow-drop, AllowDrop)", strings.Join(refused, "; "))
	}
	return nil
}

func templateChange(oldSrc, newSrc string) (realm.TemplateChange, error) {
	old, err := registry.ParseDataTemplate(oldSrc)
	if err != nil {
		return realm.TemplateChange{}, fmt.Errorf("kept %w", err)
	}
	tpl, err := registry.ParseDataTemplate(newSrc)
	if err != nil {
		return realm.TemplateChange{}, err
	}
	return realm.DiffTemplates(old, tpl), nil
}

// removed logs the removal of something the configuration no longer
// lists.
func (rc *reconciler) removed(what string, args ...any) {
	rc.p.log.Warn(what+" is no longer in the configuration: removed", args...)
}

// rekeyed reports whether the seed sets another key (want, 0: any) for an
// entity of kind that has key have, and logs that it is made anew.
func (rc *reconciler) rekeyed(kind string, have, want int, args ...any) bool {
	if want == 0 || want == have {
		return false
	}
	rc.p.log.Warn(kind+"'s key changed in the configuration: removed with what hangs on it and made anew", append(args, "was", have, "now", want)...)
	return true
}

// goneRealms marks the realms of a swarm or an app (0: any) as going with
// what is removed.
func (rc *reconciler) goneRealms(swarm, app int) {
	for _, ri := range rc.st.Realms() {
		if (swarm == 0 || ri.Swarm == swarm) && (app == 0 || ri.App == app) {
			rc.gone[ri.Name] = true
		}
	}
}

func (rc *reconciler) reconcileProjects() error {
	listed := map[string]bool{}
	for _, sp := range rc.seed.Projects {
		listed[sp.Name] = true
		pr := rc.st.ProjectByName(sp.Name)
		if pr != nil && rc.rekeyed("project", pr.Key, sp.SwarmKey, "project", pr.Name) {
			rc.goneRealms(pr.Key, 0)
			rc.st.RemoveProject(pr)
			pr = nil
		}
		if pr == nil {
			var err error
			if pr, err = rc.st.AddProject(sp.Name, registry.KeySpec(sp.SwarmKey)); err != nil {
				return err
			}
			rc.p.log.Info("project added", "project", pr.Name, "swarm_key", pr.Key)
		}
		rc.st.SetSeeded(pr, true)
		rc.projects[sp.Name] = pr
		rc.res.Projects = append(rc.res.Projects, rc.p.project(pr))
		if err := rc.reconcileDevices(pr, sp); err != nil {
			return err
		}
		if err := rc.reconcileGroups(pr, sp); err != nil {
			return err
		}
	}
	for _, pr := range rc.st.Projects() {
		if pr.Seeded && !listed[pr.Name] {
			rc.removed("project", "project", pr.Name, "swarm_key", pr.Key, "with", "its devices, groups, installations and data")
			rc.goneRealms(pr.Key, 0)
			rc.st.RemoveProject(pr)
		}
	}
	return nil
}

func (rc *reconciler) reconcileDevices(pr *registry.Project, sp SeedProject) error {
	rc.devices[sp.Name] = make(map[string]*registry.Device, len(sp.Devices))
	listed := make(map[string]bool, len(sp.Devices))
	for _, sd := range sp.Devices {
		listed[sd.Name] = true
		d := rc.st.DeviceNamed(pr, sd.Name)
		if d != nil && rc.rekeyed("device", d.Key, sd.DeviceKey, "project", pr.Name, "device", d.Name) {
			rc.st.DeleteDevice(d)
			d = nil
		}
		switch {
		case d == nil:
			spec := registry.KeySpec(sd.DeviceKey)
			spec.Project = pr
			if sd.SerialNumber != "" {
				spec.Serial, spec.SerialSet = sd.SerialNumber, true
			}
			var err error
			if d, err = rc.st.AddDevice(sd.Name, spec); err != nil {
				return err
			}
			rc.st.EntityInfo("device added", "project", pr.Name, "device", d.Name, "device_key", d.Key) // the first few, then counted
		case sd.SerialNumber != "" && d.Serial != sd.SerialNumber:
			if err := rc.st.SetSerial(d, sd.SerialNumber); err != nil {
				return err
			}
			rc.p.log.Warn("device's serial_number set by the configuration: its credentials change", "project", pr.Name, "device", d.Name)
		}
		rc.st.SetSeeded(d, true)
		rc.devices[sp.Name][sd.Name] = d
		rc.res.Devices = append(rc.res.Devices, rc.p.device(d))
	}
	for _, d := range rc.st.Devices() {
		if d.Project == pr && d.Seeded && !listed[d.Name] {
			rc.removed("device", "project", pr.Name, "device", d.Name, "device_key", d.Key, "with", "its installations")
			rc.st.DeleteDevice(d)
		}
	}
	return nil
}

func (rc *reconciler) reconcileGroups(pr *registry.Project, sp SeedProject) error {
	listed := map[string]bool{}
	for _, sg := range sp.Groups {
		listed[sg.Name] = true
		var members []*registry.Device
		for _, name := range sg.Devices {
			d := rc.devices[sp.Name][name]
			if d == nil {
				return fmt.Errorf("group %q: unknown device %q", sg.Name, name)
			}
			members = append(members, d)
		}
		g := rc.groupNamed(pr, sg.Name)
		if g != nil && rc.rekeyed("group", g.Key, sg.GroupKey, "project", pr.Name, "group", g.Name) {
			rc.st.RemoveGroup(g)
			g = nil
		}
		if g == nil {
			var err error
			if g, err = rc.st.AddGroup(pr, sg.Name, registry.KeySpec(sg.GroupKey), members); err != nil {
				return err
			}
			rc.p.log.Info("group added", "project", pr.Name, "group", g.Name, "group_key", g.Key)
		} else {
			rc.st.SetMembers(g, members)
		}
		rc.st.SetSeeded(g, true)
	}
	for _, g := range rc.st.Groups() {
		if g.Project == pr && g.Seeded && !listed[g.Name] {
			rc.removed("group", "project", pr.Name, "group", g.Name, "group_key", g.Key)
			rc.st.RemoveGroup(g)
		}
	}
	return nil
}

func (rc *reconciler) groupNamed(pr *registry.Project, name string) *registry.Group {
	for _, g := range rc.st.Groups() {
		if g.Project == pr && g.Name == name {
			return g
		}
	}
	return nil
}

func (rc *reconciler) reconcileApps() error {
	listed := map[string]bool{}
	for _, sa := range rc.seed.Apps {
		listed[strings.ToLower(sa.Name)] = true
		a := rc.st.AppByName(sa.Name)
		if a != nil && a.Owner != nil {
			return fmt.Errorf("app %q of the configuration: an app of that name was created over the management API by user %q; rename one of them", sa.Name, a.Owner.Name)
		}
		if a != nil && rc.rekeyed("app", a.Key, sa.AppKey, "app", a.Name) {
			rc.goneRealms(0, a.Key)
			rc.st.RemoveApp(a)
			a = nil
		}
		switch {
		case a == nil:
			var err error
			if a, err = rc.st.AddApp(sa.Name, sa.DataTemplate, sa.AITemplate, registry.KeySpec(sa.AppKey)); err != nil {
				return err
			}
			rc.p.log.Info("app added", "app", a.Name, "app_key", a.Key)
		case a.DataTemplate != sa.DataTemplate || a.AITemplate != sa.AITemplate:
			if err := rc.retemplate(a, sa); err != nil {
				return err
			}
		}
		rc.st.SetSeeded(a, true)
		rc.apps[strings.ToLower(sa.Name)] = a
		rc.res.Apps = append(rc.res.Apps, rc.p.app(a))
	}
	for _, a := range rc.st.Apps() {
		if a.Seeded && !listed[strings.ToLower(a.Name)] {
			rc.removed("app", "app", a.Name, "app_key", a.Key, "with", "its installations, releases, grants and data")
			rc.goneRealms(0, a.Key)
			rc.st.RemoveApp(a)
		}
	}
	return nil
}

// retemplate gives a the seed's templates in a new release; the data
// backends of its realms migrate after the pass.
func (rc *reconciler) retemplate(a *registry.App, sa SeedApp) error {
	if _, err := registry.ParseAgentTemplate(sa.AITemplate); err != nil {
		return fmt.Errorf("app %q: %w", sa.Name, err)
	}
	ch, err := templateChange(a.DataTemplate, sa.DataTemplate)
	if err != nil {
		return fmt.Errorf("app %q: %w", sa.Name, err)
	}
	r := rc.st.Retemplate(a, sa.DataTemplate, sa.AITemplate)
	rc.retemplated = append(rc.retemplated, a.Name)
	// Logged once the pass is kept (Reconcile): a refused pass makes no release.
	rc.logs = append(rc.logs, func() {
		rc.p.log.Warn("app's templates changed in the configuration: new release", "app", a.Name, "version", r.Version,
			"added", ch.Added(), "dropped", ch.Dropped())
	})
	if !ch.Empty() || transformsChanged(ch) { // reconcile_check.go
		for _, name := range rc.st.RealmsOfApp(a.Name) {
			rc.migrations = append(rc.migrations, migration{realm: name, change: ch})
		}
	}
	return nil
}

func (rc *reconciler) reconcileInstallations() error {
	listed := make(map[*registry.Installation]bool, len(rc.seed.Installations))
	for i, si := range rc.seed.Installations {
		d := rc.devices[si.Project][si.Device]
		a := rc.apps[strings.ToLower(si.App)]
		if d == nil || a == nil {
			return fmt.Errorf("installation of %q on %q in project %q: unknown device or app", si.App, si.Device, si.Project)
		}
		stage, err := seedStage(si.Stage)
		if err != nil {
			return fmt.Errorf("installations[%d]: %w", i, err)
		}
		in := rc.st.Installation(d.Key, a.Key, stage)
		if in == nil {
			if in, err = rc.st.Install(d, a, stage); err != nil {
				return err
			}
			rc.fresh[i] = true
		}
		if in.Group == nil {
			rc.st.SetSeeded(in, true)
		}
		listed[in] = true
		rc.res.Installations = append(rc.res.Installations, rc.p.installation(in))
	}
	var drop []*registry.Installation
	if len(listed) < rc.st.Installations() { // else every installation is listed: none to look at
		for _, in := range rc.st.Installs() {
			if in.Seeded && in.Group == nil && !listed[in] {
				drop = append(drop, in)
			}
		}
	}
	for _, in := range drop {
		rc.removed("installation", "project", in.Device.Project.Name, "device", in.Device.Name, "app", in.App.Name, "stage", in.Stage)
		rc.st.RemoveInstall(in)
	}
	return nil
}

func (rc *reconciler) reconcileUsers() error {
	listed := map[string]bool{}
	for _, su := range rc.seed.Users {
		listed[su.Name] = true
		roles := map[*registry.Project]string{}
		for name, role := range su.Projects {
			pr := rc.projects[name]
			if pr == nil {
				return fmt.Errorf("user %q: unknown project %q", su.Name, name)
			}
			roles[pr] = role
		}
		u := rc.st.User(su.Name)
		if u == nil {
			token := su.Token
			if token == "" {
				token = "tok-" + registry.RandomHex(16)
			}
			var err error
			if u, err = rc.st.AddUser(su.Name, token, roles); err != nil {
				return err
			}
			rc.p.log.Info("user added", "user", u.Name)
		} else {
			if su.Token != "" && su.Token != u.Token {
				if err := rc.st.SetToken(u, su.Token); err != nil {
					return err
				}
				rc.p.log.Warn("user's token set by the configuration", "user", u.Name)
			}
			if err := rc.st.SetRoles(u, roles); err != nil {
				return err
			}
		}
		rc.st.SetSeeded(u, true)
		rc.res.Tokens[u.Name] = u.Token
	}
	for _, u := range rc.st.Users() {
		if u.Seeded && !listed[u.Name] {
			rc.removed("user", "user", u.Name)
			for _, a := range rc.st.RemoveUser(u) {
				rc.p.log.Warn("app created by a removed user is owned by no one now", "app", a.Name, "user", u.Name)
			}
		}
	}
	return nil
}

func (rc *reconciler) reconcileGrants() error {
	type key struct{ project, consumer, provider string }
	listed := map[key]bool{}
	for i, g := range rc.seed.Grants {
		pr, consumer := rc.projects[g.Project], rc.apps[strings.ToLower(g.Consumer)]
		if pr == nil || consumer == nil {
			return fmt.Errorf("grants[%d]: unknown project %q or consumer %q", i, g.Project, g.Consumer)
		}
		if !rc.st.SeededGrant(pr, consumer, g.Provider) {
			if err := rc.st.Grant(pr, consumer, g.Provider); err != nil {
				return fmt.Errorf("grants[%d]: %w", i, err)
			}
			rc.st.SeededGrant(pr, consumer, g.Provider)
		}
		listed[key{pr.Name, strings.ToLower(consumer.Name), strings.ToLower(g.Provider)}] = true
	}
	for _, g := range rc.st.SeededGrants() {
		if !listed[key{g.Project.Name, strings.ToLower(g.Consumer.Name), g.Provider}] {
			rc.removed("grant", "project", g.Project.Name, "consumer", g.Consumer.Name, "provider", g.Provider)
			if err := rc.st.Revoke(g.Project, g.Consumer, g.Provider); err != nil {
				return err
			}
		}
	}
	return nil
}
