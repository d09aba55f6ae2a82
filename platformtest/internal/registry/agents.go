// This file holds what the registry knows of agent templates
// (.ironflock/ai-template.yml): their validation when an app is added,
// and which one applies to an installation (the agent runtime,
// internal/agents, calls its tools).

package registry

import (
	"fmt"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// ParseAgentTemplate parses an app's agent template; "" (or only white
// space) is an app without agents, nil.
func ParseAgentTemplate(src string) (*template.AgentTemplate, error) {
	if strings.TrimSpace(src) == "" {
		return nil, nil
	}
	tpl, _, err := template.ParseAgents([]byte(src))
	if err != nil {
		return nil, fmt.Errorf("agent template: %w", err)
	}
	return tpl, nil
}

// AgentTemplate returns the agent template (YAML, possibly "") of the
// release the installation runs: its tools are the device functions the
// app on that device serves. An installation without a release (made in
// Go while the app had no READY one) takes the app's.
func (in *Installation) AgentTemplate() string {
	if in.Release != nil {
		return in.Release.AITemplate
	}
	return in.App.AITemplate
}
