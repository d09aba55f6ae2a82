// This file holds cross-app data access in Go: the grants a project user
// gives (Grant, Revoke, Grants). A consumer app may read a provider app's
// shared tables — role app_reader on the provider's realms, with the same
// per-app credential — when its data template consumes the provider and a
// grant names it (or the wildcard). Discovery (sys.appaccess.resolve and
// .list) is internal/appaccess.

package platformtest

import (
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// Wildcard is the provider of a wildcard grant: every app of the project.
// It also lets the consumer list the providers (sys.appaccess.list).
const Wildcard = registry.Wildcard

// Grant is a data-access grant.
type Grant struct {
	Project  string // the project's name
	Consumer string // the consumer app's name
	Provider string // the provider app's name in lower case, or Wildcard
}

// Grant lets consumer read provider (an app name, any case, or Wildcard)
// in project pr. The consumer's data template must list the provider (or
// "*") under consumes; otherwise, or for an unknown provider, the test
// fails (a platform made by Start panics).
func (p *Platform) Grant(pr *Project, consumer *App, provider string) {
	if p.tb != nil {
		p.tb.Helper()
	}
	p.provision(func(s *registry.State) error { return s.Grant(pr.m, consumer.m, provider) })
}

// Revoke takes a grant back. The consumer's reader sessions that no grant
// covers any more are ended at once (GOODBYE wamp.close.killed), and their
// next joins are refused.
func (p *Platform) Revoke(pr *Project, consumer *App, provider string) {
	if p.tb != nil {
		p.tb.Helper()
	}
	p.provision(func(s *registry.State) error { return s.Revoke(pr.m, consumer.m, provider) })
	p.rt.DropRevokedReaders()
}

// Grants returns every grant, ordered by project, consumer and provider.
func (p *Platform) Grants() []Grant {
	var out []Grant
	p.reg.View(func(s *registry.State) {
		for _, g := range s.Grants() {
			out = append(out, Grant{Project: g.Project.Name, Consumer: g.Consumer.Name, Provider: g.Provider})
		}
	})
	return out
}
