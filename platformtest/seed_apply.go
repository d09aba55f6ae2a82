// This file holds Apply: provisioning a platform from a seed.

package platformtest

import (
	"fmt"
	"strings"
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
	p.ctl.Lock()
	defer p.ctl.Unlock()
	p.mu.Lock()
	res, err := p.applyLocked(s)
	p.mu.Unlock()
	p.reconcileLocked()
	if err == nil {
		err = p.applySeedData(s, res) // fleetdb_seed.go
	}
	return res, err
}

func (p *Platform) applyLocked(s *Seed) (*SeedResult, error) {
	res := &SeedResult{Tokens: map[string]string{}}
	projects := map[string]*Project{}
	devices := map[string]map[string]*Device{}
	for _, sp := range s.Projects {
		pr, err := p.addProjectLocked(sp.Name, keySpec(sp.SwarmKey))
		if err != nil {
			return res, err
		}
		projects[sp.Name] = pr
		devices[sp.Name] = map[string]*Device{}
		res.Projects = append(res.Projects, pr)
		for _, sd := range sp.Devices {
			spec := keySpec(sd.DeviceKey)
			spec.project = pr
			if sd.SerialNumber != "" {
				spec.serial, spec.serialSet = sd.SerialNumber, true
			}
			d, err := p.addDeviceLocked(sd.Name, spec)
			if err != nil {
				return res, err
			}
			devices[sp.Name][sd.Name] = d
			res.Devices = append(res.Devices, d)
		}
		for _, sg := range sp.Groups {
			var members []*Device
			for _, name := range sg.Devices {
				d := devices[sp.Name][name]
				if d == nil {
					return res, fmt.Errorf("group %q: unknown device %q", sg.Name, name)
				}
				members = append(members, d)
			}
			if _, err := p.addGroupLocked(pr, sg.Name, keySpec(sg.GroupKey), members); err != nil {
				return res, err
			}
		}
	}
	apps := map[string]*App{}
	for _, sa := range s.Apps {
		a, err := p.addAppLocked(sa.Name, sa.DataTemplate, sa.AITemplate, keySpec(sa.AppKey))
		if err != nil {
			return res, err
		}
		apps[strings.ToLower(sa.Name)] = a
		res.Apps = append(res.Apps, a)
	}
	for _, si := range s.Installations {
		d := devices[si.Project][si.Device]
		a := apps[strings.ToLower(si.App)]
		if d == nil || a == nil {
			return res, fmt.Errorf("installation of %q on %q in project %q: unknown device or app", si.App, si.Device, si.Project)
		}
		stage := Stage(si.Stage)
		if stage == "" {
			stage = Dev
		}
		in, err := p.installLocked(d, a, stage)
		if err != nil {
			return res, err
		}
		res.Installations = append(res.Installations, in)
	}
	for _, su := range s.Users {
		roles := map[*Project]string{}
		for name, role := range su.Projects {
			pr := projects[name]
			if pr == nil {
				return res, fmt.Errorf("user %q: unknown project %q", su.Name, name)
			}
			roles[pr] = role
		}
		token := su.Token
		if token == "" {
			token = "tok-" + randomHex(16)
		}
		if _, err := p.addUserLocked(su.Name, token, roles); err != nil {
			return res, err
		}
		res.Tokens[su.Name] = token
	}
	return res, nil
}

func keySpec(key int) provisionSpec {
	if key == 0 {
		return provisionSpec{}
	}
	return provisionSpec{key: key, keySet: true}
}
