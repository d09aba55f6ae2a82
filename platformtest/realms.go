// This file holds what the platform's services learn from the registry: a
// realm and its app's data template.

package platformtest

import (
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

// realmTemplate returns a provisioned realm and the data template of its
// app ("" without one).
func (p *Platform) realmTemplate(name string) (realm.Info, string, error) {
	var ri realm.Info
	var ok bool
	var src string
	p.reg.View(func(s *registry.State) {
		if ri, ok = s.Realm(name); ok {
			if a := s.App(ri.App); a != nil {
				src = a.DataTemplate
			}
		}
	})
	if !ok {
		return realm.Info{}, "", fmt.Errorf("no realm %q: install an app first", name)
	}
	return ri, src, nil
}

// realmDataTemplate is realmTemplate with the template parsed (nil: an app
// without tables); the data backend learns realms through it.
func (p *Platform) realmDataTemplate(name string) (realm.Info, *template.DataTemplate, error) {
	ri, src, err := p.realmTemplate(name)
	if err != nil {
		return ri, nil, err
	}
	tpl, err := registry.ParseDataTemplate(src) // checked when the app was added
	if err != nil {
		return ri, nil, fmt.Errorf("realm %q: %w", name, err)
	}
	return ri, tpl, nil
}
