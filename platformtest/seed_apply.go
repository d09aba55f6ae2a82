// This file holds Apply: provisioning a platform from a seed.

package platformtest

import (
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/registry"
)

// SeedResult is what Apply provisioned.
type SeedResult struct {
	Projects      []*Project
	Devices       []*Device
	Apps          []*App
	Installations []*Installation // in seed order
	// Tokens maps each user name to its bearer token (generated ones
	// included).
	Tokens map[string]string
}

// Apply provisions the platform from a seed (parsed by ParseSeed, or built
// in code). Unlike the Add* methods it returns errors, also for conflicts
// with what the platform already holds; it stops at the first one, and
// what was provisioned before stays.
func (p *Platform) Apply(s *Seed) (*SeedResult, error) {
	var res *SeedResult
	err := p.reg.Update(func(st *registry.State) (err error) {
		res, err = p.apply(st, s)
		return err
	})
	p.reconcile()
	for _, in := range res.Installations {
		if err != nil {
			break
		}
		err = p.openDataBackend(in.Realm(), in.App().Name()) // postgres.go
	}
	if err == nil {
		err = p.applySeedData(s, res, nil) // fleetdb_seed.go
	}
	if err == nil {
		err = p.applySeedFiles(s) // seed_files.go
	}
	return res, err
}

// apply provisions s under the registry's lock.
func (p *Platform) apply(st *registry.State, s *Seed) (*SeedResult, error) {
	res := &SeedResult{Tokens: map[string]string{}}
	projects := map[string]*registry.Project{}
	devices := map[string]map[string]*registry.Device{}
	for _, sp := range s.Projects {
		pr, err := st.AddProject(sp.Name, registry.KeySpec(sp.SwarmKey))
		if err != nil {
			return res, err
		}
		projects[sp.Name] = pr
		devices[sp.Name] = map[string]*registry.Device{}
		res.Projects = append(res.Projects, p.project(pr))
		for _, sd := range sp.Devices {
			spec := registry.KeySpec(sd.DeviceKey)
			spec.Project = pr
			if sd.SerialNumber != "" {
				spec.Serial, spec.SerialSet = sd.SerialNumber, true
			}
			d, err := st.AddDevice(sd.Name, spec)
			if err != nil {
				return res, err
			}
			devices[sp.Name][sd.Name] = d
			res.Devices = append(res.Devices, p.device(d))
		}
		for _, sg := range sp.Groups {
			var members []*registry.Device
			for _, name := range sg.Devices {
				d := devices[sp.Name][name]
				if d == nil {
					return res, fmt.Errorf("group %q: unknown device %q", sg.Name, name)
				}
				members = append(members, d)
			}
			if _, err := st.AddGroup(pr, sg.Name, registry.KeySpec(sg.GroupKey), members); err != nil {
				return res, err
			}
		}
	}
	apps := map[string]*registry.App{}
	for _, sa := range s.Apps {
		a, err := st.AddApp(sa.Name, sa.DataTemplate, sa.AITemplate, registry.KeySpec(sa.AppKey))
		if err != nil {
			return res, err
		}
		apps[strings.ToLower(sa.Name)] = a
		res.Apps = append(res.Apps, p.app(a))
	}
	for _, si := range s.Installations {
		d := devices[si.Project][si.Device]
		a := apps[strings.ToLower(si.App)]
		if d == nil || a == nil {
			return res, fmt.Errorf("installation of %q on %q in project %q: unknown device or app", si.App, si.Device, si.Project)
		}
		stage := si.Stage
		if stage == "" {
			stage = string(Dev)
		}
		in, err := st.Install(d, a, stage)
		if err != nil {
			return res, err
		}
		res.Installations = append(res.Installations, p.installation(in))
	}
	for _, su := range s.Users {
		roles := map[*registry.Project]string{}
		for name, role := range su.Projects {
			pr := projects[name]
			if pr == nil {
				return res, fmt.Errorf("user %q: unknown project %q", su.Name, name)
			}
			roles[pr] = role
		}
		token := su.Token
		if token == "" {
			token = "tok-" + registry.RandomHex(16)
		}
		if _, err := st.AddUser(su.Name, token, roles); err != nil {
			return res, err
		}
		res.Tokens[su.Name] = token
	}
	return res, applyGrants(st, s, projects)
}
