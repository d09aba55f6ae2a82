// This file renders the agent tools: an argument struct per topic, the
// functions serving them (AgentTools) and ServeAgentTools.

package flockgen

import (
	"fmt"
	"strings"
)

// renderTools writes the tools section.
func (g *gen) renderTools(w writer) {
	if len(g.topics) == 0 {
		return
	}
	for _, tp := range g.topics {
		for _, st := range tp.structs {
			w.p("")
			w.doc("", st.doc)
			if len(st.fields) == 0 {
				w.p("type %s struct{}", st.name)
				continue
			}
			if st.name == tp.argsType() {
				w.p("//")
				w.doc("", "Optional parameters are pointers (or nil slices and maps); ServeAgentTools validates the arguments against the tool's JSON Schema before the function sees them.")
			}
			w.p("type %s struct {", st.name)
			for _, f := range st.fields {
				if f.doc != "" {
					w.doc("\t", fmt.Sprintf("%s is the parameter %s: %s", f.name, f.json, sentence(f.doc)))
				}
				opt := ""
				if f.omitempty {
					opt = ",omitempty"
				}
				w.p("\t%s %s `json:\"%s%s\"`", f.name, f.typ, f.json, opt)
			}
			w.p("}")
		}
	}
	w.p("")
	w.p("// AgentTools holds the Go function of each topic tool of ai-template.yml,")
	w.p("// for ServeAgentTools. A function's result goes to the model as it is:")
	w.p("// keep it small.")
	w.p("type AgentTools struct {")
	for _, tp := range g.topics {
		w.doc("\t", fmt.Sprintf("%s serves topic %s (tool %s of agent %s).", tp.base, tp.name, tp.tool.Name, tp.agent))
		w.p("\t%s func(ctx context.Context, args %s) (any, error)", tp.base, tp.argsType())
	}
	w.p("}")
	w.p("")
	w.doc("", "ServeAgentTools serves every topic tool of ai-template.yml as a device function of c with the functions of tools, which must all be set (agent.Serve): each call's arguments are validated against the tool's JSON Schema and decoded before the function runs.")
	w.p("func ServeAgentTools(ctx context.Context, c *client.Client, tools AgentTools) (*agent.Service, error) {")
	w.p("tpl, err := agent.Parse([]byte(agentTemplateSource))")
	w.p("if err != nil {")
	w.p("return nil, err")
	w.p("}")
	w.p("return agent.Serve(ctx, c, tpl,")
	for _, tp := range g.topics {
		w.p("agent.Typed(%q, tools.%s),", tp.name, tp.base)
	}
	w.p(")")
	w.p("}")
	w.p("")
	w.p("// agentTemplateSource is the ai-template.yml the tools were generated from.")
	w.p("const agentTemplateSource = %s", goString(string(g.own.agentsRaw)))
}

// sentence ends s with a full stop unless it ends with punctuation.
func sentence(s string) string {
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?") {
		return s
	}
	return s + "."
}
