// This file holds what the platform's services learn from the registry: a
// realm's app data template.

package platformtest

import (
	"fmt"

	"github.com/flockgo/ironflock/platformtest/internal/realm"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// realmTemplate returns a provisioned realm and the data template of its
// app ("" without one).
func (p *Platform) realmTemplate(name string) (realm.Info, string, error) {
	var ri realm.Info
	var ok bool
	var src string
	p.reg.Do(func(s *registry.State) {
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
