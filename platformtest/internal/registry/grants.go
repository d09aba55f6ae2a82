// This file holds the data-access grants a project user gives: within one
// project, a consumer app may read a provider app's shared tables (role
// app_reader on the provider's realms) when its data template consumes
// the provider (or "*") and a grant names the provider (or "*", the
// wildcard grant, which also lets it list every provider).

package registry

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// Wildcard is the provider of a grant (and of a consumes entry) that
// stands for every app of the project.
const Wildcard = "*"

type grantKey struct {
	swarm, consumer int
	provider        string // lower case, or Wildcard
}

// Grant is a data-access grant.
type Grant struct {
	Project  *Project
	Consumer *App
	Provider string // the provider app's name in lower case, or Wildcard
}

// Grant lets consumer read provider (an app name, any case, or Wildcard)
// in project pr. The consumer's data template must consume the provider
// (or "*"): there is nothing to grant otherwise.
func (s *State) Grant(pr *Project, consumer *App, provider string) error {
	k, err := s.grantKey(pr, consumer, provider)
	if err != nil {
		return err
	}
	tpl, err := ParseDataTemplate(consumer.DataTemplate)
	if err != nil {
		return fmt.Errorf("grant: app %q: %w", consumer.Name, err)
	}
	declared := false
	if tpl != nil {
		for _, c := range tpl.Consumes {
			declared = declared || c.App == Wildcard || (k.provider != Wildcard && strings.EqualFold(c.App, k.provider))
		}
	}
	if !declared {
		return fmt.Errorf("grant: app %q does not consume %q: its data template has no consumes entry for it", consumer.Name, provider)
	}
	if _, ok := s.grants[k]; !ok {
		s.grants[k] = false
		s.touchGrant(k)
	}
	s.log.Info("data access granted", "project", pr.Name, "consumer", consumer.Name, "provider", k.provider)
	return nil
}

// Revoke takes a grant back; it fails when there is none.
func (s *State) Revoke(pr *Project, consumer *App, provider string) error {
	k, err := s.grantKey(pr, consumer, provider)
	if err != nil {
		return err
	}
	if _, ok := s.grants[k]; !ok {
		return fmt.Errorf("revoke: app %q holds no grant for %q in project %q", consumer.Name, provider, pr.Name)
	}
	delete(s.grants, k)
	s.touchGrant(k)
	s.log.Info("data access revoked", "project", pr.Name, "consumer", consumer.Name, "provider", k.provider)
	return nil
}

func (s *State) grantKey(pr *Project, consumer *App, provider string) (grantKey, error) {
	switch {
	case !s.HasProject(pr):
		return grantKey{}, fmt.Errorf("grant: the project is not on this platform")
	case !s.HasApp(consumer):
		return grantKey{}, fmt.Errorf("grant: the consumer app is not on this platform")
	case provider != Wildcard && s.AppByName(provider) == nil:
		return grantKey{}, fmt.Errorf("grant: no app %q", provider)
	case provider != Wildcard && strings.EqualFold(provider, consumer.Name):
		return grantKey{}, fmt.Errorf("grant: app %q cannot be granted its own data", consumer.Name)
	}
	return grantKey{swarm: pr.Key, consumer: consumer.Key, provider: strings.ToLower(provider)}, nil
}

// Granted reports whether the consumer app may read provider (an app
// name, any case) in project swarm: by a grant naming it or the wildcard
// grant.
func (s *State) Granted(swarm, consumer int, provider string) bool {
	_, named := s.grants[grantKey{swarm, consumer, strings.ToLower(provider)}]
	return named || s.WildcardGranted(swarm, consumer)
}

// WildcardGranted reports whether the consumer holds the wildcard grant in
// project swarm.
func (s *State) WildcardGranted(swarm, consumer int) bool {
	_, ok := s.grants[grantKey{swarm, consumer, Wildcard}]
	return ok
}

// Grants returns every grant, ordered by project, consumer and provider.
func (s *State) Grants() []Grant {
	var out []Grant
	for k := range s.grants {
		out = append(out, Grant{Project: s.projects[k.swarm], Consumer: s.apps[k.consumer], Provider: k.provider})
	}
	slices.SortFunc(out, func(a, b Grant) int {
		if c := cmp.Compare(a.Project.Key, b.Project.Key); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Consumer.Key, b.Consumer.Key); c != 0 {
			return c
		}
		return cmp.Compare(a.Provider, b.Provider)
	})
	return out
}
