// This file holds the provisioning model: projects (swarms), devices, apps
// and installations, their options, and the exported Add*/Install/Uninstall
// methods with their error-returning unexported forms (used by Apply and,
// later, the management REST API). All state is guarded by Platform.mu.

package platformtest

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/flockgo/ironflock/platformtest/internal/fleetdb"
	"github.com/flockgo/ironflock/platformtest/internal/realm"
)

// Stage is the stage an app is installed in.
type Stage string

// The two stages of an installation.
const (
	Dev  Stage = "DEV"
	Prod Stage = "PROD"
)

// defaultProjectName is the project AddDevice uses without InProject.
const defaultProjectName = "default"

// state is the provisioned world of a platform.
type state struct {
	projects map[int]*Project
	devices  map[int]*Device
	apps     map[int]*App
	installs map[instKey]*Installation
	realms   map[string]*realm.Info
	groups   map[int]*group
	users    map[string]*user
	releases map[int]*release // management API builds (model_releases.go)
	// grants maps a consumer app key to the provider app names (lower
	// case, or "*") it may read with role app_reader. The hook for
	// cross-app access; nothing fills it yet.
	grants map[int]map[string]bool
	next   map[string]int // next key to try per kind
}

func newState() state {
	return state{
		projects: map[int]*Project{},
		devices:  map[int]*Device{},
		apps:     map[int]*App{},
		installs: map[instKey]*Installation{},
		realms:   map[string]*realm.Info{},
		groups:   map[int]*group{},
		users:    map[string]*user{},
		releases: map[int]*release{},
		grants:   map[int]map[string]bool{},
		next:     map[string]int{},
	}
}

type instKey struct {
	device, app int
	stage       Stage
}

// AddProject adds a project (swarm). Options: Key.
func (p *Platform) AddProject(name string, opts ...ProvisionOption) *Project {
	pr, err := p.addProject(name, specOf(opts))
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
	}
	return pr
}

// AddDevice adds a device. Options: Key, Serial, InProject (default: the
// project "default", created on first use).
func (p *Platform) AddDevice(name string, opts ...ProvisionOption) *Device {
	d, err := p.addDevice(name, specOf(opts))
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
	}
	return d
}

// AddApp adds an app with its data template (YAML, may be "", stored as
// given). Options: Key.
func (p *Platform) AddApp(name, dataTemplateYAML string, opts ...ProvisionOption) *App {
	a, err := p.addApp(name, dataTemplateYAML, "", specOf(opts))
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
	}
	return a
}

var (
	appNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,63}$`)
	serialPattern  = regexp.MustCompile(`^\S+$`)
)

func checkName(kind, name string, max int) error {
	if strings.TrimSpace(name) == "" {
		return fmt.Errorf("%s name is empty", kind)
	}
	if name != strings.TrimSpace(name) || len(name) > max {
		return fmt.Errorf("%s name %q: no surrounding spaces, at most %d bytes", kind, name, max)
	}
	return nil
}

// allocKeyLocked returns the wanted key if free, or the next free one.
func (p *Platform) allocKeyLocked(kind string, spec provisionSpec, used func(int) bool) (int, error) {
	if spec.keySet {
		if spec.key <= 0 {
			return 0, fmt.Errorf("%s key %d: keys are positive", kind, spec.key)
		}
		if used(spec.key) {
			return 0, fmt.Errorf("%s key %d is taken", kind, spec.key)
		}
		return spec.key, nil
	}
	k := max(p.st.next[kind], 1)
	for used(k) {
		k++
	}
	p.st.next[kind] = k + 1
	return k, nil
}

func (p *Platform) addProject(name string, spec provisionSpec) (*Project, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addProjectLocked(name, spec)
}

func (p *Platform) addProjectLocked(name string, spec provisionSpec) (*Project, error) {
	if spec.serialSet || spec.project != nil {
		return nil, fmt.Errorf("project %q: only the Key option applies to projects", name)
	}
	if err := checkName("project", name, 63); err != nil {
		return nil, err
	}
	if p.projectByNameLocked(name) != nil {
		return nil, fmt.Errorf("project %q exists", name)
	}
	key, err := p.allocKeyLocked("project", spec, func(k int) bool { return p.st.projects[k] != nil })
	if err != nil {
		return nil, err
	}
	pr := &Project{p: p, key: key, name: name}
	p.st.projects[key] = pr
	return pr, nil
}

func (p *Platform) projectByNameLocked(name string) *Project {
	for _, pr := range p.st.projects {
		if pr.name == name {
			return pr
		}
	}
	return nil
}

func (p *Platform) addDevice(name string, spec provisionSpec) (*Device, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addDeviceLocked(name, spec)
}

func (p *Platform) addDeviceLocked(name string, spec provisionSpec) (*Device, error) {
	if err := checkName("device", name, 63); err != nil {
		return nil, err
	}
	pr := spec.project
	if pr != nil && (pr.p != p || p.st.projects[pr.key] != pr) {
		return nil, fmt.Errorf("device %q: project %q is not on this platform", name, pr.name)
	}
	if pr == nil {
		if pr = p.projectByNameLocked(defaultProjectName); pr == nil {
			var err error
			if pr, err = p.addProjectLocked(defaultProjectName, provisionSpec{}); err != nil {
				return nil, err
			}
		}
	}
	for _, d := range p.st.devices {
		if d.project == pr && d.name == name {
			return nil, fmt.Errorf("device %q exists in project %q", name, pr.name)
		}
	}
	serial := spec.serial
	if !spec.serialSet {
		serial = newUUID()
	} else if !serialPattern.MatchString(serial) {
		return nil, fmt.Errorf("device %q: serial %q must be non-empty without spaces", name, serial)
	}
	if p.deviceBySerialLocked(serial) != nil {
		return nil, fmt.Errorf("device %q: serial %q is taken", name, serial)
	}
	key, err := p.allocKeyLocked("device", spec, func(k int) bool { return p.st.devices[k] != nil })
	if err != nil {
		return nil, err
	}
	d := &Device{p: p, key: key, name: name, serial: serial, project: pr, credKey: randomHex(32), created: p.clock.Now()}
	p.st.devices[key] = d
	return d, nil
}

func (p *Platform) deviceBySerialLocked(serial string) *Device {
	for _, d := range p.st.devices {
		if d.serial == serial {
			return d
		}
	}
	return nil
}

func (p *Platform) addApp(name, dataTemplate, aiTemplate string, spec provisionSpec) (*App, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addAppLocked(name, dataTemplate, aiTemplate, spec)
}

func (p *Platform) addAppLocked(name, dataTemplate, aiTemplate string, spec provisionSpec) (*App, error) {
	if spec.serialSet || spec.project != nil {
		return nil, fmt.Errorf("app %q: only the Key option applies to apps", name)
	}
	if !appNamePattern.MatchString(name) {
		return nil, fmt.Errorf("app name %q: 1-63 letters, digits, '.', '_' or '-'", name)
	}
	for _, a := range p.st.apps {
		if strings.EqualFold(a.name, name) {
			return nil, fmt.Errorf("app %q exists", a.name)
		}
	}
	if _, err := fleetdb.ParseTemplate(dataTemplate); err != nil {
		return nil, fmt.Errorf("app %q: %w", name, err)
	}
	key, err := p.allocKeyLocked("app", spec, func(k int) bool { return p.st.apps[k] != nil })
	if err != nil {
		return nil, err
	}
	a := &App{p: p, key: key, name: name, dataTemplate: dataTemplate, aiTemplate: aiTemplate, created: p.clock.Now()}
	p.st.apps[key] = a
	p.addInitialReleaseLocked(a)
	return a, nil
}

// Install installs app a on device d in stage (Dev or Prod) and returns
// the installation, whose Env is what a device agent injects. The realm
// realm-<swarm>-<app>-<stage> is created when it does not exist yet.
func (p *Platform) Install(d *Device, a *App, stage Stage) *Installation {
	in, err := p.install(d, a, stage)
	if err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
	}
	return in
}

// Uninstall removes an installation: its credentials stop working for new
// sessions. Sessions already joined stay, and the realm stays.
func (p *Platform) Uninstall(in *Installation) {
	if err := p.uninstall(in); err != nil {
		if p.tb != nil {
			p.tb.Helper()
		}
		p.fail(err)
	}
}

func (p *Platform) install(d *Device, a *App, stage Stage) (*Installation, error) {
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	in, err := p.installLocked(d, a, stage)
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	p.reconcileLocked()
	return in, nil
}

func (p *Platform) installLocked(d *Device, a *App, stage Stage) (*Installation, error) {
	if d == nil || a == nil {
		return nil, fmt.Errorf("install: device and app are required")
	}
	if d.p != p || p.st.devices[d.key] != d {
		return nil, fmt.Errorf("install: device %q is not on this platform", d.name)
	}
	if a.p != p || p.st.apps[a.key] != a {
		return nil, fmt.Errorf("install: app %q is not on this platform", a.name)
	}
	st, err := parseStage(string(stage))
	if err != nil {
		return nil, fmt.Errorf("install %q on %q: %w", a.name, d.name, err)
	}
	k := instKey{d.key, a.key, st}
	if p.st.installs[k] != nil {
		return nil, fmt.Errorf("app %q is already installed on device %q in %s", a.name, d.name, st)
	}
	ri := realm.NewInfo(d.project.key, a.key, string(st))
	in := &Installation{p: p, device: d, app: a, stage: st, realm: ri.Name, epoch: 1}
	p.initInstallStateLocked(in)
	p.st.installs[k] = in
	if p.st.realms[ri.Name] == nil {
		p.st.realms[ri.Name] = &ri
	}
	p.log.Info("installed", "app", a.name, "device", d.name, "stage", string(st), "realm", ri.Name)
	return in, nil
}

func (p *Platform) uninstall(in *Installation) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if in == nil || in.p != p {
		return fmt.Errorf("uninstall: installation is not on this platform")
	}
	k := instKey{in.device.key, in.app.key, in.stage}
	if p.st.installs[k] != in {
		return fmt.Errorf("uninstall: app %q is not installed on device %q in %s", in.app.name, in.device.name, in.stage)
	}
	delete(p.st.installs, k)
	in.removed = true
	return nil
}

func parseStage(s string) (Stage, error) {
	switch st := Stage(strings.ToUpper(strings.TrimSpace(s))); st {
	case Dev, Prod:
		return st, nil
	default:
		return "", fmt.Errorf("stage %q: want DEV or PROD", s)
	}
}

// newUUID returns a random RFC 4122 version 4 UUID in its text form.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// credentialGrace is how long the previous epoch of a rotated per-app
// credential stays valid, in platform time (WIRE.md §1.4).
const credentialGrace = 15 * time.Minute
