// This file serves the agents' tools:
//
//	GET  /agents                                  every installation with an agent
//	                                              template: its agents and tools with
//	                                              their parameter schema
//	GET  /agents/{realm}/{device}/{agent}/{tool}  a form generated from the tool's schema
//	POST /agents/{realm}/{device}/{agent}/{tool}  calls the tool on the device, as the
//	                                              platform's agent runtime does (needs
//	                                              Config.Write), and shows the answer
//
// Tools come from the agent template of the release the device runs.

package console

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/flockgo/ironflock/platformtest/internal/agents"
	"github.com/flockgo/ironflock/platformtest/internal/registry"
	"github.com/flockgo/ironflock/template"
)

type toolView struct {
	Agent, Name string
	Description string
	Topic       string
	Delegate    string
	Schema      string // the parameters' JSON Schema, readable
	Link        string // the form, for a topic tool
}

type agentView struct {
	Name  string
	Main  bool
	Tools []toolView
}

type agentInstall struct {
	Realm, App, Stage, Device string
	DeviceKey                 int
	Agents                    []agentView
	Err                       string
}

// agentInstalls returns the installations whose release has an agent
// template, with the parsed template and its realm.
func (c *Console) agentInstalls() []agentInstall {
	var out []agentInstall
	c.cfg.Registry.Do(func(s *registry.State) {
		for _, d := range s.Devices() {
			for _, in := range s.DeviceInstalls(d) {
				tpl, err := registry.ParseAgentTemplate(in.AgentTemplate())
				if tpl == nil && err == nil {
					continue
				}
				ai := agentInstall{Realm: in.Realm, App: in.App.Name, Stage: in.Stage, Device: d.Name, DeviceKey: d.Key}
				if err != nil {
					ai.Err = err.Error()
				} else {
					ai.Agents = agentViews(tpl, in.Realm, d.Key)
				}
				out = append(out, ai)
			}
		}
	})
	return out
}

func agentViews(tpl *template.AgentTemplate, realm string, device int) []agentView {
	var out []agentView
	for _, name := range tpl.Names() {
		a := tpl.Agents[name]
		av := agentView{Name: name, Main: a.Main}
		for _, tn := range slices.Sorted(maps.Keys(a.Tools)) {
			t := a.Tools[tn]
			tv := toolView{Agent: name, Name: tn, Description: t.Description, Topic: t.Topic, Delegate: t.Delegate,
				Schema: prettyJSON(t.Parameters)}
			if t.Delegate == "" {
				tv.Link = fmt.Sprintf("/agents/%s/%d/%s/%s", realm, device, name, tn)
			}
			av.Tools = append(av.Tools, tv)
		}
		out = append(out, av)
	}
	return out
}

func (c *Console) agents(w http.ResponseWriter, r *http.Request) {
	c.render(w, "agents", "Agents", "/agents", c.agentInstalls())
}

// field is one input of a tool form.
type field struct {
	Name, Type  string // JSON Schema type: string, integer, number, boolean, or json
	Description string
	Required    bool
	Enum        []string
	Value       string
}

type toolFormView struct {
	Realm, App, Stage, Device string
	DeviceKey                 int
	Agent, Tool, Topic        string
	Description               string
	Procedure                 string
	Fields                    []field
	Conventions               []string
	Convention                string
	CallJSON                  string
	Err                       string
	ReadOnly                  string // why calls are off
}

// toolRequest finds a tool of the release a device runs.
func (c *Console) toolRequest(r *http.Request) (toolFormView, agents.Request, *template.Tool, error) {
	var v toolFormView
	var req agents.Request
	var tool *template.Tool
	realmName, agent, toolName := r.PathValue("realm"), r.PathValue("agent"), r.PathValue("tool")
	deviceKey, _ := strconv.Atoi(r.PathValue("device"))
	var err error
	c.cfg.Registry.Do(func(s *registry.State) {
		ri, ok := s.Realm(realmName)
		if !ok {
			err = fmt.Errorf("there is no realm %s", realmName)
			return
		}
		in := s.Installation(deviceKey, ri.App, ri.Stage)
		if in == nil {
			err = fmt.Errorf("app %d is not installed on device %d in %s", ri.App, deviceKey, ri.Stage)
			return
		}
		src := in.AgentTemplate()
		tpl, perr := registry.ParseAgentTemplate(src)
		if perr != nil || tpl == nil || tpl.Agents[agent] == nil || tpl.Agents[agent].Tools[toolName] == nil {
			err = fmt.Errorf("the release device %d runs has no tool %s of agent %s", deviceKey, toolName, agent)
			return
		}
		tool = tpl.Agents[agent].Tools[toolName]
		v = toolFormView{Realm: realmName, App: in.App.Name, Stage: in.Stage, Device: in.Device.Name, DeviceKey: deviceKey,
			Agent: agent, Tool: toolName, Topic: tool.Topic, Description: tool.Description,
			Procedure:   fmt.Sprintf("%d.%d.%d.%s.%s", ri.Swarm, deviceKey, ri.App, ri.Stage, tool.Topic),
			Conventions: agents.Conventions, Convention: agents.Conventions[0]}
		req = agents.Request{Realm: ri, Template: src, Agent: agent, Tool: toolName, DeviceKey: deviceKey}
	})
	if err == nil && tool.Delegate != "" {
		err = fmt.Errorf("tool %s of agent %s delegates to agent %s; only a topic tool calls a device", toolName, agent, tool.Delegate)
	}
	if err != nil {
		return v, req, nil, err
	}
	v.Fields = fields(tool)
	if !c.cfg.Write {
		v.ReadOnly = readOnlyText
	}
	return v, req, tool, nil
}

// fields generates the inputs of a tool's parameters, in the order the
// template writes them.
func fields(t *template.Tool) []field {
	props, _ := t.Parameters["properties"].(map[string]any)
	required := map[string]bool{}
	if l, ok := t.Parameters["required"].([]any); ok {
		for _, n := range l {
			if s, ok := n.(string); ok {
				required[s] = true
			}
		}
	}
	var out []field
	for _, name := range t.ParameterNames {
		p, _ := props[name].(map[string]any)
		f := field{Name: name, Type: "json", Required: required[name]}
		f.Description, _ = p["description"].(string)
		switch typ, _ := p["type"].(string); typ {
		case "string", "integer", "number", "boolean":
			f.Type = typ
		}
		if enum, ok := p["enum"].([]any); ok {
			for _, e := range enum {
				f.Enum = append(f.Enum, fmt.Sprint(e))
			}
		}
		out = append(out, f)
	}
	return out
}

func (c *Console) toolForm(w http.ResponseWriter, r *http.Request) {
	v, _, _, err := c.toolRequest(r)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, err.Error()+".")
		return
	}
	c.render(w, "tool", "Tool "+v.Tool, "/agents", v)
}

func (c *Console) toolCall(w http.ResponseWriter, r *http.Request) {
	if !c.writable(w, r) {
		return
	}
	v, req, _, err := c.toolRequest(r)
	if err != nil {
		c.fail(w, r, http.StatusNotFound, err.Error()+".")
		return
	}
	if err := r.ParseForm(); err != nil {
		c.fail(w, r, http.StatusBadRequest, "The form could not be read: "+err.Error())
		return
	}
	args := map[string]any{}
	for i := range v.Fields {
		f := &v.Fields[i]
		f.Value = r.PostForm.Get("p." + f.Name)
		val, present, ferr := f.parse()
		if ferr != nil && v.Err == "" {
			v.Err = ferr.Error()
		}
		if present {
			args[f.Name] = val
		}
	}
	if conv, ok := agents.ParseConvention(r.PostForm.Get("convention")); ok {
		req.Convention, v.Convention = conv, conv.String()
	}
	if v.Err != "" {
		c.renderStatus(w, http.StatusUnprocessableEntity, "tool", "Tool "+v.Tool, "/agents", v)
		return
	}
	req.Arguments = args
	what := fmt.Sprintf("call tool %s of agent %s on device %s (%s, %s convention) with %s",
		v.Tool, v.Agent, v.Device, v.Realm, v.Convention, compactJSON(args))
	call, err := c.cfg.Agents.Invoke(r.Context(), req)
	switch {
	case err != nil:
		v.Err = err.Error()
		c.logAction(what, "not called: "+err.Error())
	case call.Error != "":
		c.logAction(what, "refused: "+call.Error+" "+call.Message)
	default:
		c.logAction(what, "answered "+compactJSON(call.Result))
	}
	if err == nil {
		v.CallJSON = prettyJSON(map[string]any{"procedure": call.Procedure, "args": call.Args, "kwargs": call.Kwargs,
			"ok": call.Error == "", "result": call.Result, "error": call.Error, "message": call.Message})
	}
	c.render(w, "tool", "Tool "+v.Tool, "/agents", v)
}

// parse reads a field's value: absent when empty (or "—" for a boolean).
func (f *field) parse() (any, bool, error) {
	s := strings.TrimSpace(f.Value)
	if s == "" {
		if f.Required {
			return nil, false, fmt.Errorf("parameter %q is required", f.Name)
		}
		return nil, false, nil
	}
	switch f.Type {
	case "string":
		return f.Value, true, nil
	case "integer":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false, fmt.Errorf("parameter %q: %q is not an integer", f.Name, s)
		}
		return n, true, nil
	case "number":
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false, fmt.Errorf("parameter %q: %q is not a number", f.Name, s)
		}
		return x, true, nil
	case "boolean":
		return s == "true", true, nil
	}
	var x any
	if err := json.Unmarshal([]byte(s), &x); err != nil {
		return nil, false, fmt.Errorf("parameter %q: not JSON: %v", f.Name, err)
	}
	return x, true, nil
}
