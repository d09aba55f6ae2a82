// This file holds the model of the agent tools: per topic tool of
// ai-template.yml an argument struct made from its JSON Schema.

package flockgen

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/flockgo/ironflock/template"
)

// topic is one topic served as a device function, with the struct of its
// arguments.
type topic struct {
	name    string // the topic
	base    string // its Go name: ReadTemperature
	tool    *template.Tool
	agent   string
	structs []*goStruct // the argument struct first, then the nested ones
}

// goStruct is a generated struct type.
type goStruct struct {
	name   string
	doc    string
	fields []goField
}

// goField is a field of a generated struct.
type goField struct {
	name, json, typ, doc string
	omitempty            bool
}

// argsType returns the name of the topic's argument struct.
func (t *topic) argsType() string { return t.base + "Args" }

// buildTopics collects the topic tools of the agent template, one per
// topic (tools of several agents may share a topic with equal
// parameters, as package agent requires), in topic order.
func (g *gen) buildTopics() {
	a := g.own.agents
	if a == nil {
		return
	}
	byTopic := map[string]*topic{}
	for _, agentName := range a.Names() {
		ag := a.Agents[agentName]
		for _, toolName := range ag.ToolNames() {
			tl := ag.Tools[toolName]
			if tl.Topic == "" {
				continue
			}
			if prev, ok := byTopic[tl.Topic]; ok {
				if !reflect.DeepEqual(prev.tool.Parameters, tl.Parameters) || !slices.Equal(prev.tool.ParameterNames, tl.ParameterNames) {
					g.problem(g.toolAt(agentName, toolName), "%s.tools.%s: serves topic %q like tool %s of agent %s (line %d) but with other parameters; one device function has one signature",
						agentName, toolName, tl.Topic, prev.tool.Name, prev.agent, prev.tool.Pos.Line)
				}
				continue
			}
			byTopic[tl.Topic] = &topic{name: tl.Topic, tool: tl, agent: agentName}
		}
	}
	names := make([]string, 0, len(byTopic))
	for n := range byTopic {
		names = append(names, n)
	}
	slices.Sort(names)
	fields := newScope("the fields of AgentTools")
	for _, n := range names {
		tp := byTopic[n]
		base, ok := GoName(n)
		at := g.toolAt(tp.agent, tp.tool.Name)
		if !ok {
			g.problem(at, "topic %q has no letter or digit to make a Go name of", n)
			continue
		}
		tp.base = base
		if err := fields.add(base, "topic "+n); err != nil {
			g.problem(at, "%s.tools.%s.topic: %v", tp.agent, tp.tool.Name, err)
		}
		doc := fmt.Sprintf("%s are the arguments of the tool %s (topic %s)", tp.argsType(), tp.tool.Name, n)
		if d := oneLine(tp.tool.Description); d != "" {
			doc += ": " + d
		}
		tp.structs = g.objectStruct(tp, tp.argsType(), doc+".", tp.tool.Parameters, tp.tool.ParameterNames, "")
		g.topics = append(g.topics, tp)
	}
}

// toolAt locates a tool in the agent template.
func (g *gen) toolAt(agent, tool string) string {
	return g.own.agentsSrc.at(agent, "tools", tool)
}

// objectStruct makes the struct name of an object schema s (properties in
// order, or sorted when order is nil) and the structs nested in it; ptr
// is the JSON Pointer of s in the tool's parameters.
func (g *gen) objectStruct(tp *topic, name, doc string, s map[string]any, order []string, ptr string) []*goStruct {
	props, _ := s["properties"].(map[string]any)
	if order == nil {
		for p := range props {
			order = append(order, p)
		}
		sort.Strings(order)
	}
	required := map[string]bool{}
	if req, ok := s["required"].([]any); ok {
		for _, r := range req {
			if n, ok := r.(string); ok {
				required[n] = true
			}
		}
	}
	st := &goStruct{name: name, doc: doc}
	out := []*goStruct{st}
	fields := newScope("the fields of " + name)
	for _, p := range order {
		ps, _ := props[p].(map[string]any)
		fname, ok := GoName(p)
		at := g.toolAt(tp.agent, tp.tool.Name)
		if pos := tp.tool.ParameterPosition(ptr + "/properties/" + escapePointer(p)); pos.Line > 0 {
			at = fmt.Sprintf("%s:%d:%d: ", g.own.agentsSrc.path, pos.Line, pos.Column)
		}
		if !ok {
			g.problem(at, "parameter %q of topic %s has no letter or digit to make a Go name of", p, tp.name)
			continue
		}
		if !tagName(p) {
			g.problem(at, "parameter %q of topic %s cannot be named in a json struct tag (no quotes, backslashes, commas, backquotes or control characters); rename it", p, tp.name)
			continue
		}
		if err := fields.add(fname, "parameter "+p); err != nil {
			g.problem(at, "topic %s: %v", tp.name, err)
			continue
		}
		typ, nested := g.schemaType(tp, name+fname, ps, ptr+"/properties/"+escapePointer(p))
		out = append(out, nested...)
		f := goField{name: fname, json: p, typ: typ, doc: oneLine(str(ps["description"]))}
		if !required[p] {
			if pointable(typ) {
				f.typ = "*" + typ
			} else {
				f.omitempty = true
			}
		}
		st.fields = append(st.fields, f)
	}
	return out
}

// schemaType returns the Go type of a parameter's schema s, and the
// structs made for it (an object with properties becomes the struct
// name).
func (g *gen) schemaType(tp *topic, name string, s map[string]any, ptr string) (string, []*goStruct) {
	var types []string
	switch v := s["type"].(type) {
	case string:
		types = []string{v}
	case []any:
		for _, x := range v {
			if t, ok := x.(string); ok && t != "null" {
				types = append(types, t)
			}
		}
	}
	if len(types) != 1 {
		return "any", nil
	}
	switch types[0] {
	case "string":
		if s["format"] == "date-time" {
			return "time.Time", nil
		}
		return "string", nil
	case "integer":
		return "int64", nil
	case "number":
		return "float64", nil
	case "boolean":
		return "bool", nil
	case "array":
		items, ok := s["items"].(map[string]any)
		if !ok {
			return "[]any", nil
		}
		elem, nested := g.schemaType(tp, name+"Item", items, ptr+"/items")
		return "[]" + elem, nested
	case "object":
		if props, ok := s["properties"].(map[string]any); ok && len(props) > 0 {
			doc := fmt.Sprintf("%s is the parameter %s of topic %s", name, strings.TrimPrefix(ptr, "/properties/"), tp.name)
			if d := oneLine(str(s["description"])); d != "" {
				doc += ": " + d
			}
			return name, g.objectStruct(tp, name, doc+".", s, nil, ptr)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			elem, nested := g.schemaType(tp, name+"Value", ap, ptr+"/additionalProperties")
			return "map[string]" + elem, nested
		}
		return "map[string]any", nil
	}
	return "any", nil
}

// pointable reports a type an optional field holds through a pointer:
// not slices, maps or any, which say "absent" by being nil.
func pointable(typ string) bool {
	return !strings.HasPrefix(typ, "[]") && !strings.HasPrefix(typ, "map[") && typ != "any"
}

func str(v any) string { s, _ := v.(string); return s }

// oneLine joins the lines of a description for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}

// tagName reports whether name can stand in a json struct tag as it is.
func tagName(name string) bool {
	for _, r := range name {
		if r < ' ' || r == 0x7f || strings.ContainsRune("\"\\,`", r) {
			return false
		}
	}
	return true
}
