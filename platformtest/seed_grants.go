// This file holds the grants of a seed (the grants: section of flockd's
// config): the cross-app read access a project user gives, checked and
// applied.

package platformtest

import (
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// SeedGrant lets a consumer app read a provider app (or every app, with
// provider "*") in a project.
type SeedGrant struct {
	Project  string `yaml:"project"`
	Consumer string `yaml:"consumer"`
	Provider string `yaml:"provider"` // an app name, or "*" for the wildcard grant
}

// validateGrants checks that every grant names a project and apps of the
// seed, and no grant twice.
func (v *seedValidator) validateGrants(s *Seed) {
	projects, apps := map[string]bool{}, map[string]bool{}
	for _, pr := range s.Projects {
		projects[pr.Name] = true
	}
	for _, a := range s.Apps {
		apps[strings.ToLower(a.Name)] = true
	}
	seen := map[[3]string]bool{}
	for i, g := range s.Grants {
		path := fmt.Sprintf("grants[%d]", i)
		switch {
		case g.Project == "" || g.Consumer == "" || g.Provider == "":
			v.errorf(path, "project, consumer and provider are required")
			continue
		case !projects[g.Project]:
			v.errorf(path, "unknown project %q", g.Project)
		case !apps[strings.ToLower(g.Consumer)]:
			v.errorf(path, "unknown consumer app %q", g.Consumer)
		case g.Provider != Wildcard && !apps[strings.ToLower(g.Provider)]:
			v.errorf(path, "unknown provider app %q (or %q for every app)", g.Provider, Wildcard)
		}
		k := [3]string{g.Project, strings.ToLower(g.Consumer), strings.ToLower(g.Provider)}
		if seen[k] {
			v.errorf(path, "the grant is listed twice")
		}
		seen[k] = true
	}
}

// applyGrants gives the seed's grants; projects are the seed's, by name.
func applyGrants(st *registry.State, s *Seed, projects map[string]*registry.Project) error {
	for i, g := range s.Grants {
		consumer := st.AppByName(g.Consumer)
		if err := st.Grant(projects[g.Project], consumer, g.Provider); err != nil {
			return fmt.Errorf("grants[%d]: %w", i, err)
		}
	}
	return nil
}
