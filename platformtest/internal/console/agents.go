// This file serves the agents' tools:
//
//	GET  /agents                                  every realm whose installations have an
//	                                              agent template: its agents and tools with
//	                                              their parameter schema, and the first
//	                                              devices of each (capped.go)
//	GET  /agents/{realm}/device/{agent}/{tool}    ?key=: the form of the device with that
//	                                              key (a tool on more devices than listed)
//	GET  /agents/{realm}/{device}/{agent}/{tool}  a form generated from the tool's schema
//	POST /agents/{realm}/{device}/{agent}/{tool}  calls the tool on the device, as the
//	                                              platform's agent runtime does (needs
//	                                              Config.Write), and shows the answer
//
// Tools come from the agent template of the release the device runs.

package console

import (
	"context"
	"encoding/json"
	"fmt"
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
	// Devices are the first devices by key whose release has the tool
	// (a topic tool), each with whether it serves the tool now; at most
	// listCap of DeviceCount.
	Devices     []toolDevice
	DeviceCount int
	Pick        string // the form that opens the tool on a device by key (toolPick)
	All         string // the paged list of the realm's devices
}

// Capped tells whether the tool's list leaves devices out.
func (tv toolView) Capped() bool { return tv.DeviceCount > len(tv.Devices) }

// toolDevice is a device whose release has a topic tool.
type toolDevice struct {
	Key       int
	Name      string
	Procedure string
	Serves    bool   // a session holds the procedure's registration
	Link      string // the call form, only when Serves
	Err       string // why it could not be looked up
}

type agentView struct {
	Name  string
	Main  bool
	Tools []toolView
}

// agentRealm is one realm (an app in a stage) with an agent template:
// its agents and tools, merged over the releases its devices run.
type agentRealm struct {
	Realm, App, Stage string
	Devices           someDevices // the first devices with an agent template (capped.go)
	Agents            []agentView
	Errs              []string // templates that do not parse, by device: at most listCap of ErrCount
	ErrCount          int
}

// parsedAgents is an agent template parsed, once per source.
type parsedAgents struct {
	tpl *template.AgentTemplate
	err error
}

// topicTool is a topic tool of a template: where merge put it in the
// realm's agents, and its topic.
type topicTool struct {
	agent, tool int
	topic       string
}

// agentRealms returns the realms whose devices run a release with an
// agent template, each tool with the first devices that have it and
// whether they serve it now. Each distinct template is parsed once, and
// the registration lookups are made for the devices listed only.
func (c *Console) agentRealms(ctx context.Context) []agentRealm {
	var out []agentRealm
	c.cfg.Registry.Do(func(s *registry.State) {
		parsed := map[string]parsedAgents{}
		for _, ri := range s.Realms() {
			installs, _ := s.RealmInstalls(ri.Name, -1) // by device key
			var ar *agentRealm
			tools := map[string][]topicTool{} // by template source
			for _, in := range installs {
				src := in.AgentTemplate()
				p, ok := parsed[src]
				if !ok {
					p.tpl, p.err = registry.ParseAgentTemplate(src)
					parsed[src] = p
				}
				if p.tpl == nil && p.err == nil {
					continue
				}
				if ar == nil {
					ar = &agentRealm{Realm: ri.Name, App: in.App.Name, Stage: in.Stage,
						Devices: someDevices{All: realmDevicesLink(ri.App, ri.Name)}}
				}
				d := in.Device
				if ar.Devices.Total++; len(ar.Devices.Devices) < listCap {
					ar.Devices.Devices = append(ar.Devices.Devices, deviceRef{Key: d.Key, Name: d.Name})
				}
				if p.err != nil {
					if ar.ErrCount++; len(ar.Errs) < listCap {
						ar.Errs = append(ar.Errs, d.Name+": "+p.err.Error())
					}
					continue
				}
				tt, ok := tools[src]
				if !ok {
					tt = ar.merge(p.tpl)
					tools[src] = tt
				}
				for _, t := range tt {
					tv := &ar.Agents[t.agent].Tools[t.tool]
					if tv.DeviceCount++; len(tv.Devices) < listCap {
						tv.Devices = append(tv.Devices, toolDevice{Key: d.Key, Name: d.Name,
							Procedure: toolProcedure(ri, d.Key, t.topic)})
					}
				}
			}
			if ar != nil {
				slices.SortFunc(ar.Agents, func(a, b agentView) int { return strings.Compare(a.Name, b.Name) })
				out = append(out, *ar)
			}
		}
	})
	for i := range out {
		for j := range out[i].Agents {
			for k := range out[i].Agents[j].Tools {
				tv := &out[i].Agents[j].Tools[k]
				tv.Pick = fmt.Sprintf("/agents/%s/device/%s/%s", out[i].Realm, tv.Agent, tv.Name)
				tv.All = out[i].Devices.All
				for l := range tv.Devices {
					td := &tv.Devices[l]
					serves, err := c.registered(ctx, out[i].Realm, td.Procedure)
					switch {
					case err != nil:
						td.Err = err.Error()
					case serves:
						td.Serves = true
						td.Link = fmt.Sprintf("/agents/%s/%d/%s/%s", out[i].Realm, td.Key, tv.Agent, tv.Name)
					}
				}
			}
		}
	}
	return out
}

// merge adds the agents and tools of a template to the realm's and
// returns where its topic tools are.
func (ar *agentRealm) merge(tpl *template.AgentTemplate) []topicTool {
	var out []topicTool
	for _, name := range tpl.Names() {
		a := tpl.Agents[name]
		ai := slices.IndexFunc(ar.Agents, func(av agentView) bool { return av.Name == name })
		if ai < 0 {
			ai = len(ar.Agents)
			ar.Agents = append(ar.Agents, agentView{Name: name, Main: a.Main})
		}
		av := &ar.Agents[ai]
		for _, tn := range a.ToolNames() {
			t := a.Tools[tn]
			ti := slices.IndexFunc(av.Tools, func(tv toolView) bool { return tv.Name == tn })
			if ti < 0 {
				ti = len(av.Tools)
				av.Tools = append(av.Tools, toolView{Agent: name, Name: tn, Description: t.Description, Topic: t.Topic,
					Delegate: t.Delegate, Schema: prettyJSON(t.Parameters)})
			}
			if t.Delegate == "" {
				out = append(out, topicTool{agent: ai, tool: ti, topic: t.Topic})
			}
		}
	}
	return out
}

func (c *Console) agents(w http.ResponseWriter, r *http.Request) {
	c.render(w, "agents", "Agents", "/agents", c.agentRealms(r.Context()))
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
	NotServed                 string // why the device cannot answer now
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
	switch serves, err := c.registered(r.Context(), realmName, v.Procedure); {
	case err != nil:
		v.NotServed = "Whether " + v.Device + " serves the tool is unknown: " + err.Error() + "."
	case !serves:
		v.NotServed = v.Device + " does not serve this tool now: no session holds the registration of " + v.Procedure +
			", so a call would fail with wamp.error.no_such_procedure. The Agents page lists the devices that serve it."
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
