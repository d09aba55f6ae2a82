// This file holds apps: provisioning in Go or by a seed (with a READY
// release holding the templates), creation by a management API user (who
// owns the app; names are unique per owner), lookups, whether an app is in
// use, and deletion.

package registry

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/flockgo/ironflock/template"
)

// AppNamePattern is what an app name must match.
var AppNamePattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,63}$`)

// App is an app that can be installed on devices.
type App struct {
	Key  int    `json:"key"`
	Name string `json:"name"`
	// DataTemplate and AITemplate are the templates as given, possibly
	// "". They follow the app's newest READY release.
	DataTemplate string `json:"data_template,omitempty"`
	AITemplate   string `json:"ai_template,omitempty"`

	Description string    `json:"description,omitempty"`
	Owner       *User     `json:"-"` // nil: provisioned in Go or by a seed, owned by no user; kept by name
	Created     time.Time `json:"created,omitzero"`
	Seeded      bool      `json:"seeded,omitempty"`
}

// ParseDataTemplate parses an app's data template; "" (or only white
// space) is an app without tables, nil.
func ParseDataTemplate(src string) (*template.DataTemplate, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	tpl, _, err := template.ParseData([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("data template: %w", err)
	}
	return tpl, nil
}

// AddApp adds an app with its templates (stored as given) and a READY
// release 1.0.0 holding them. Spec: Key only.
func (s *State) AddApp(name, dataTemplate, aiTemplate string, spec Spec) (*App, error) {
	if spec.SerialSet || spec.Project != nil {
		return nil, fmt.Errorf("app %q: only the Key option applies to apps", name)
	}
	if !AppNamePattern.MatchString(name) {
		return nil, fmt.Errorf("app name %q: 1-63 letters, digits, '.', '_' or '-'", name)
	}
	for _, a := range s.apps {
		if strings.EqualFold(a.Name, name) {
			return nil, fmt.Errorf("app %q exists", a.Name)
		}
	}
	if _, err := ParseDataTemplate(dataTemplate); err != nil {
		return nil, fmt.Errorf("app %q: %w", name, err)
	}
	if _, err := ParseAgentTemplate(aiTemplate); err != nil {
		return nil, fmt.Errorf("app %q: %w", name, err)
	}
	key, err := s.allocKey("app", spec, func(k int) bool { return s.apps[k] != nil })
	if err != nil {
		return nil, err
	}
	a := &App{Key: key, Name: name, DataTemplate: dataTemplate, AITemplate: aiTemplate, Created: s.Now()}
	s.apps[key] = a
	s.touchApp(a)
	s.addInitialRelease(a)
	return a, nil
}

// CreateApp adds an app owned by u. The caller has checked the name.
func (s *State) CreateApp(u *User, name, description string) *App {
	key, _ := s.allocKey("app", Spec{}, func(k int) bool { return s.apps[k] != nil })
	a := &App{Key: key, Name: name, Description: description, Owner: u, Created: s.Now()}
	s.apps[key] = a
	s.touchApp(a)
	s.log.Info("app created", "app", name, "key", key, "owner", u.Name)
	return a
}

// App returns the app with the given key, or nil.
func (s *State) App(key int) *App { return s.apps[key] }

// HasApp reports whether a is an app of this registry.
func (s *State) HasApp(a *App) bool { return a != nil && s.apps[a.Key] == a }

// Apps returns every app, ordered by key.
func (s *State) Apps() []*App { return sortedByKey(s.apps) }

// AppByName returns the app named name (any case), or nil.
func (s *State) AppByName(name string) *App {
	for _, a := range s.apps {
		if strings.EqualFold(a.Name, name) {
			return a
		}
	}
	return nil
}

// OwnedAppNamed returns the app of owner u named name (any case), or nil.
func (s *State) OwnedAppNamed(u *User, name string) *App {
	for _, a := range s.apps {
		if a.Owner == u && strings.EqualFold(a.Name, name) {
			return a
		}
	}
	return nil
}

// AppInUse reports whether a is installed on a device or a group.
func (s *State) AppInUse(a *App) bool {
	for _, in := range s.installs {
		if in.App == a {
			return true
		}
	}
	for _, g := range s.groups {
		for _, ga := range g.Apps {
			if ga.App == a {
				return true
			}
		}
	}
	return false
}

// DeleteApp removes an app that is not in use, with its releases and the
// grants that name it; a build in progress is cancelled. Its realms stay.
func (s *State) DeleteApp(a *App) {
	for _, r := range s.ReleasesOf(a) {
		if r.Status == ReleaseBuilding {
			s.CancelBuild(r)
		}
		delete(s.releases, r.Key)
		s.touchRelease(r)
	}
	for k := range s.grants {
		if k.consumer == a.Key || k.provider == strings.ToLower(a.Name) {
			delete(s.grants, k)
			s.touchGrant(k)
		}
	}
	delete(s.apps, a.Key)
	s.touchApp(a)
	s.log.Info("app deleted", "app", a.Name, "key", a.Key)
}

// RealmsOfApp returns the provisioned realms of the app named name (any
// case), sorted.
func (s *State) RealmsOfApp(name string) []string {
	var out []string
	for _, ri := range s.Realms() {
		if a := s.apps[ri.App]; a != nil && strings.EqualFold(a.Name, name) {
			out = append(out, ri.Name)
		}
	}
	return out
}
