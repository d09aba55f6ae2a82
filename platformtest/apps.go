// This file holds apps in Go: AddApp, AppByKey and the App handle.

package platformtest

import "github.com/flockgo/ironflock/platformtest/internal/registry"

// App is an app that can be installed on devices.
type App struct {
	p *Platform
	m *registry.App
}

func (p *Platform) app(m *registry.App) *App {
	return handle(p, m, func() *App { return &App{p: p, m: m} })
}

// Key returns the app key.
func (a *App) Key() int { return a.m.Key }

// Name returns the app name.
func (a *App) Name() string { return a.m.Name }

// DataTemplate returns the data template YAML as given, possibly "". A
// release built over the management API that becomes READY replaces it
// with its own data template.
func (a *App) DataTemplate() string {
	var t string
	a.p.reg.View(func(*registry.State) { t = a.m.DataTemplate })
	return t
}

// AddApp adds an app with its data template (YAML, may be "", stored as
// given). Options: Key.
func (p *Platform) AddApp(name, dataTemplateYAML string, opts ...ProvisionOption) *App {
	if p.tb != nil {
		p.tb.Helper()
	}
	var m *registry.App
	p.provision(func(s *registry.State) (err error) {
		m, err = s.AddApp(name, dataTemplateYAML, "", specOf(opts))
		return err
	})
	return p.app(m)
}

// AppByKey returns the app with the given key, nil when there is none (an
// app created over the management API, for one).
func (p *Platform) AppByKey(key int) *App {
	var m *registry.App
	p.reg.View(func(s *registry.State) { m = s.App(key) })
	return p.app(m)
}
