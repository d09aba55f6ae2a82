// This file holds the files section of a seed (flockd's configuration,
// docs/flockd.md §3): the deployment's file service settings — the inline
// transfer limit, whether direct transfers exist, and the project user's
// storage budgets per app and stage — with their validation and their
// application once Apply has provisioned the platform. It serves no URI.

package platformtest

import (
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/internal/wire"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// SeedFiles configures the file service. Unset keys keep the defaults:
// 6 MiB inline, direct transfers on, DefaultFilesQuota per data backend.
type SeedFiles struct {
	// InlineMaxBytes is the inline transfer limit the catalog reports.
	InlineMaxBytes *int64 `yaml:"inline_max_bytes"`
	// Presign says whether direct (presigned HTTP) transfers exist; false
	// models an air-gapped deployment.
	Presign *bool `yaml:"presign"`
	// Quotas are the project user's storage budgets.
	Quotas []SeedQuota `yaml:"quotas"`
}

// SeedQuota is the storage budget of one app's data backend in a project
// and stage; 0 is unlimited.
type SeedQuota struct {
	Project string `yaml:"project"`
	App     string `yaml:"app"`
	Stage   string `yaml:"stage"` // DEV (default) or PROD, any case
	Bytes   int64  `yaml:"bytes"`
}

// validateFiles checks the files section against the seed's projects and
// apps.
func (v *seedValidator) validateFiles(s *Seed) {
	f := s.Files
	if f.InlineMaxBytes != nil && *f.InlineMaxBytes < 0 {
		v.errorf("files.inline_max_bytes", "%d is negative", *f.InlineMaxBytes)
	}
	projects, apps := map[string]bool{}, map[string]bool{}
	for _, pr := range s.Projects {
		projects[pr.Name] = true
	}
	for _, a := range s.Apps {
		apps[strings.ToLower(a.Name)] = true
	}
	seen := map[[3]string]bool{}
	for i, q := range f.Quotas {
		path := fmt.Sprintf("files.quotas[%d]", i)
		if !projects[q.Project] {
			v.errorf(path, "unknown project %q", q.Project)
		}
		if !apps[strings.ToLower(q.App)] {
			v.errorf(path, "unknown app %q", q.App)
		}
		stage, err := seedStage(q.Stage)
		if err != nil {
			v.errorf(path, "%v", err)
		}
		if q.Bytes < 0 {
			v.errorf(path, "bytes %d is negative (0 is unlimited)", q.Bytes)
		}
		k := [3]string{q.Project, strings.ToLower(q.App), stage}
		if seen[k] {
			v.errorf(path, "a second quota of app %q in project %q, %s", q.App, q.Project, stage)
		}
		seen[k] = true
	}
}

// seedStage reads a seed's stage: DEV when empty.
func seedStage(s string) (string, error) {
	if s == "" {
		return wire.StageDev, nil
	}
	return registry.ParseStage(s)
}

// applySeedFiles applies the files section.
func (p *Platform) applySeedFiles(s *Seed) error {
	f := s.Files
	if f.InlineMaxBytes != nil {
		if *f.InlineMaxBytes < 0 {
			return fmt.Errorf("files.inline_max_bytes: %d is negative", *f.InlineMaxBytes)
		}
		p.SetFilesInlineMaxBytes(*f.InlineMaxBytes)
	}
	if f.Presign != nil {
		p.SetFilesPresign(*f.Presign)
	}
	for i, q := range f.Quotas {
		stage, err := seedStage(q.Stage)
		if err != nil {
			return fmt.Errorf("files.quotas[%d]: %w", i, err)
		}
		var swarm, app int
		p.reg.View(func(st *registry.State) {
			if pr := st.ProjectByName(q.Project); pr != nil {
				swarm = pr.Key
			}
			if a := st.AppByName(q.App); a != nil {
				app = a.Key
			}
		})
		if swarm == 0 || app == 0 {
			return fmt.Errorf("files.quotas[%d]: unknown project %q or app %q", i, q.Project, q.App)
		}
		if q.Bytes < 0 {
			return fmt.Errorf("files.quotas[%d]: bytes %d is negative", i, q.Bytes)
		}
		p.SetFilesQuota(wire.Realm(swarm, app, stage), q.Bytes)
	}
	return nil
}
