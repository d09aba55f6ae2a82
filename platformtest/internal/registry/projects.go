// This file holds projects (swarms): the containers of devices and groups.

package registry

import "fmt"

// Project is a project (swarm).
type Project struct {
	Key    int    `json:"key"`
	Name   string `json:"name"`
	Seeded bool   `json:"seeded,omitempty"` // provisioned from a seed (Seeded)
}

// AddProject adds a project. Spec: Key only.
func (s *State) AddProject(name string, spec Spec) (*Project, error) {
	if spec.SerialSet || spec.Project != nil {
		return nil, fmt.Errorf("project %q: only the Key option applies to projects", name)
	}
	if err := CheckName("project", name, 63); err != nil {
		return nil, err
	}
	if s.ProjectByName(name) != nil {
		return nil, fmt.Errorf("project %q exists", name)
	}
	key, err := s.allocKey("project", spec, func(k int) bool { return s.projects[k] != nil })
	if err != nil {
		return nil, err
	}
	pr := &Project{Key: key, Name: name}
	s.projects[key] = pr
	s.touchProject(pr)
	return pr, nil
}

// ProjectByName returns the project named name, or nil.
func (s *State) ProjectByName(name string) *Project {
	for _, pr := range s.projects {
		if pr.Name == name {
			return pr
		}
	}
	return nil
}

// Project returns the project with the given swarm key, or nil.
func (s *State) Project(key int) *Project { return s.projects[key] }

// HasProject reports whether pr is a project of this registry.
func (s *State) HasProject(pr *Project) bool { return pr != nil && s.projects[pr.Key] == pr }

// Projects returns every project ordered by key.
func (s *State) Projects() []*Project { return sortedByKey(s.projects) }
