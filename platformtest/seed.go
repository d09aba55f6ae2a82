// This file holds seeds: the YAML configuration flockd serves a platform
// from (docs/flockd.md §3), its parsing with unknown keys reported by line,
// and its validation. Apply (seed_apply.go) provisions a platform from it.

package platformtest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"go.yaml.in/yaml/v3"
)

// Seed describes a platform to provision: projects with devices and
// groups, apps, installations, management API users and the file
// service's settings. Keys left 0 are assigned.
type Seed struct {
	Projects      []SeedProject      `yaml:"projects"`
	Apps          []SeedApp          `yaml:"apps"`
	Installations []SeedInstallation `yaml:"installations"`
	Users         []SeedUser         `yaml:"users"`
	Grants        []SeedGrant        `yaml:"grants"` // seed_grants.go
	Files         SeedFiles          `yaml:"files"`  // seed_files.go
}

// SeedProject is a project (swarm) of a seed.
type SeedProject struct {
	Name     string       `yaml:"name"`
	SwarmKey int          `yaml:"swarm_key"`
	Devices  []SeedDevice `yaml:"devices"`
	Groups   []SeedGroup  `yaml:"groups"`
}

// SeedDevice is a device of a seed project.
type SeedDevice struct {
	Name         string `yaml:"name"`
	DeviceKey    int    `yaml:"device_key"`
	SerialNumber string `yaml:"serial_number"` // a UUID is generated when empty
}

// SeedGroup is a device group of a seed project.
type SeedGroup struct {
	Name     string   `yaml:"name"`
	GroupKey int      `yaml:"group_key"`
	Devices  []string `yaml:"devices"` // device names of the project
}

// SeedApp is an app of a seed. Templates are given inline or as a file
// relative to the seed's directory; ParseSeed reads the files into
// DataTemplate and AITemplate.
type SeedApp struct {
	Name             string `yaml:"name"`
	AppKey           int    `yaml:"app_key"`
	DataTemplate     string `yaml:"data_template"`
	DataTemplateFile string `yaml:"data_template_file"`
	AITemplate       string `yaml:"ai_template"`
	AITemplateFile   string `yaml:"ai_template_file"`
	// TransformRows supplies the rows of the app's transforms, which the
	// fake cannot compute from their SQL: transform name → rows in the
	// view's order, on every data backend of the app (see
	// Platform.SetTransformRows).
	TransformRows map[string][]map[string]any `yaml:"transform_rows"`
}

// SeedInstallation installs an app on a device of a project.
type SeedInstallation struct {
	Project string `yaml:"project"`
	Device  string `yaml:"device"`
	App     string `yaml:"app"`
	Stage   string `yaml:"stage"` // DEV (default) or PROD, any case
	// Rows seeds tables of the installation's data backend: table name →
	// rows (column id → value), stored as if the device had appended them
	// (see Platform.InsertRows).
	Rows map[string][]map[string]any `yaml:"rows"`
}

// SeedUser is a management API user.
type SeedUser struct {
	Name     string            `yaml:"name"`
	Token    string            `yaml:"token"`    // bearer token; generated when empty
	Projects map[string]string `yaml:"projects"` // project name → admin or viewer
}

// ParseSeed parses and validates a seed. Template files are read relative
// to baseDir. Every problem is reported, each with its line.
func ParseSeed(data []byte, baseDir string) (*Seed, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	seed := &Seed{}
	if len(root.Content) == 0 {
		return seed, nil
	}
	doc := root.Content[0]
	lines := map[string]int{}
	var errs []error
	checkKeys(doc, reflect.TypeFor[Seed](), "", lines, &errs)
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if err := doc.Decode(seed); err != nil {
		return nil, fmt.Errorf("seed: %w", err)
	}
	v := &seedValidator{lines: lines}
	for i := range seed.Apps {
		v.readTemplates(&seed.Apps[i], fmt.Sprintf("apps[%d]", i), baseDir)
	}
	v.validate(seed)
	v.validateGrants(seed)
	if len(v.errs) > 0 {
		return nil, errors.Join(v.errs...)
	}
	return seed, nil
}

// checkKeys reports mapping keys the seed types do not know, and records
// the line of every node by its path (projects[0].devices[1]...).
func checkKeys(n *yaml.Node, t reflect.Type, path string, lines map[string]int, errs *[]error) {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	lines[path] = n.Line
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return // Decode reports the type error
		}
		fields := map[string]reflect.Type{}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			fields[name] = f.Type
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, val := n.Content[i], n.Content[i+1]
			ft, ok := fields[k.Value]
			if !ok {
				where := path
				if where == "" {
					where = "top level"
				}
				*errs = append(*errs, fmt.Errorf("line %d: %s: unknown key %q", k.Line, where, k.Value))
				continue
			}
			checkKeys(val, ft, joinPath(path, k.Value), lines, errs)
		}
	case reflect.Slice:
		if n.Kind == yaml.SequenceNode {
			for i, c := range n.Content {
				checkKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), lines, errs)
			}
		}
	case reflect.Map:
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				checkKeys(n.Content[i+1], t.Elem(), joinPath(path, n.Content[i].Value), lines, errs)
			}
		}
	}
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// seedValidator collects the problems of a seed.
type seedValidator struct {
	lines map[string]int
	errs  []error
}

func (v *seedValidator) errorf(path, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if line, ok := v.lines[path]; ok {
		v.errs = append(v.errs, fmt.Errorf("line %d: %s: %s", line, path, msg))
		return
	}
	v.errs = append(v.errs, fmt.Errorf("%s: %s", path, msg))
}

func (v *seedValidator) readTemplates(a *SeedApp, path, baseDir string) {
	read := func(inline *string, file, key string) {
		if file == "" {
			return
		}
		if *inline != "" {
			v.errorf(path, "%s and %s_file are both set", key, key)
			return
		}
		name := file
		if !filepath.IsAbs(name) {
			name = filepath.Join(baseDir, name)
		}
		b, err := os.ReadFile(name)
		if err != nil {
			v.errorf(path+"."+key+"_file", "%v", err)
			return
		}
		*inline = string(b)
	}
	read(&a.DataTemplate, a.DataTemplateFile, "data_template")
	read(&a.AITemplate, a.AITemplateFile, "ai_template")
}

// keySet checks that explicit keys of one kind are positive and unique.
type keySet struct {
	kind string
	seen map[int]string
}

func (v *seedValidator) checkKey(ks *keySet, key int, path string) {
	switch {
	case key < 0:
		v.errorf(path, "%s %d: keys are positive (0 or absent: assigned)", ks.kind, key)
	case key > 0:
		if prev, dup := ks.seen[key]; dup {
			v.errorf(path, "%s %d is also used by %s", ks.kind, key, prev)
		}
		ks.seen[key] = path
	}
}

func (v *seedValidator) validate(s *Seed) {
	swarms := &keySet{"swarm_key", map[int]string{}}
	devKeys := &keySet{"device_key", map[int]string{}}
	groupKeys := &keySet{"group_key", map[int]string{}}
	appKeys := &keySet{"app_key", map[int]string{}}
	projects := map[string]map[string]bool{} // project → device names
	serials := map[string]string{}
	for i, pr := range s.Projects {
		path := fmt.Sprintf("projects[%d]", i)
		if err := registry.CheckName("project", pr.Name, 63); err != nil {
			v.errorf(path, "%v", err)
		} else if projects[pr.Name] != nil {
			v.errorf(path, "project %q is declared twice", pr.Name)
		}
		v.checkKey(swarms, pr.SwarmKey, path)
		devices := map[string]bool{}
		for j, d := range pr.Devices {
			dpath := fmt.Sprintf("%s.devices[%d]", path, j)
			if err := registry.CheckName("device", d.Name, 63); err != nil {
				v.errorf(dpath, "%v", err)
			} else if devices[d.Name] {
				v.errorf(dpath, "device %q is declared twice in project %q", d.Name, pr.Name)
			}
			devices[d.Name] = true
			v.checkKey(devKeys, d.DeviceKey, dpath)
			if d.SerialNumber != "" {
				if !registry.SerialPattern.MatchString(d.SerialNumber) {
					v.errorf(dpath, "serial_number %q must not contain spaces", d.SerialNumber)
				} else if prev, dup := serials[d.SerialNumber]; dup {
					v.errorf(dpath, "serial_number %q is also used by %s", d.SerialNumber, prev)
				}
				serials[d.SerialNumber] = dpath
			}
		}
		groups := map[string]bool{}
		for j, g := range pr.Groups {
			gpath := fmt.Sprintf("%s.groups[%d]", path, j)
			if err := registry.CheckName("group", g.Name, 63); err != nil {
				v.errorf(gpath, "%v", err)
			} else if groups[g.Name] {
				v.errorf(gpath, "group %q is declared twice in project %q", g.Name, pr.Name)
			}
			groups[g.Name] = true
			v.checkKey(groupKeys, g.GroupKey, gpath)
			members := map[string]bool{}
			for _, name := range g.Devices {
				switch {
				case !devices[name]:
					v.errorf(gpath, "device %q is not a device of project %q", name, pr.Name)
				case members[name]:
					v.errorf(gpath, "device %q is listed twice", name)
				}
				members[name] = true
			}
		}
		if projects[pr.Name] == nil {
			projects[pr.Name] = devices
		}
	}

	apps := map[string]bool{}
	for i, a := range s.Apps {
		path := fmt.Sprintf("apps[%d]", i)
		if !registry.AppNamePattern.MatchString(a.Name) {
			v.errorf(path, "app name %q: 1-63 letters, digits, '.', '_' or '-'", a.Name)
		} else if apps[strings.ToLower(a.Name)] {
			v.errorf(path, "app %q is declared twice", a.Name)
		}
		apps[strings.ToLower(a.Name)] = true
		v.checkKey(appKeys, a.AppKey, path)
	}

	installed := map[[4]string]bool{} // project, device, app (lower case), stage
	for i, in := range s.Installations {
		path := fmt.Sprintf("installations[%d]", i)
		devices, ok := projects[in.Project]
		switch {
		case in.Project == "" || in.Device == "" || in.App == "":
			v.errorf(path, "project, device and app are required")
			continue
		case !ok:
			v.errorf(path, "unknown project %q", in.Project)
		case !devices[in.Device]:
			v.errorf(path, "unknown device %q in project %q", in.Device, in.Project)
		}
		if !apps[strings.ToLower(in.App)] {
			v.errorf(path, "unknown app %q", in.App)
		}
		stage := Dev
		if in.Stage != "" {
			st, err := registry.ParseStage(in.Stage)
			if err != nil {
				v.errorf(path, "%v", err)
				continue
			}
			stage = Stage(st)
		}
		k := [4]string{in.Project, in.Device, strings.ToLower(in.App), string(stage)}
		if installed[k] {
			v.errorf(path, "app %q is installed twice on device %q in %s", in.App, in.Device, stage)
		}
		installed[k] = true
	}

	users := map[string]bool{}
	tokens := map[string]string{}
	for i, u := range s.Users {
		path := fmt.Sprintf("users[%d]", i)
		if err := registry.CheckName("user", u.Name, 63); err != nil {
			v.errorf(path, "%v", err)
		} else if users[u.Name] {
			v.errorf(path, "user %q is declared twice", u.Name)
		}
		users[u.Name] = true
		if u.Token != "" {
			if prev, dup := tokens[u.Token]; dup {
				v.errorf(path, "token is also the token of %s", prev)
			}
			tokens[u.Token] = path
		}
		for name, role := range u.Projects {
			if _, ok := projects[name]; !ok {
				v.errorf(joinPath(path+".projects", name), "unknown project %q", name)
			}
			if role != wire.RoleAdmin && role != wire.RoleViewer {
				v.errorf(joinPath(path+".projects", name), "role %q: want admin or viewer", role)
			}
		}
	}
	v.validateFiles(s) // seed_files.go
}
