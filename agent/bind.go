// This file binds the Go tools to the topic tools of the template before
// anything registers: every topic tool needs exactly one Go tool and the
// reverse, tools of several agents sharing a topic need the same
// parameters, and a typed tool's struct must agree with its parameters
// (schema_match.go). Every mismatch is reported at once, at the position
// package template gives.

package agent

import (
	"cmp"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/flockgo/ironflock/template"
)

// binding is a topic tool bound to the Go tool serving it.
type binding struct {
	topic  string
	tool   Tool
	schema *jsonschema.Schema
	props  map[string]any
	params params
}

// toolRef is a topic tool of the template with its agent.
type toolRef struct {
	agent string
	tool  *template.Tool
}

// path is the tool's path in the file: agent.tools.name.
func (r toolRef) path() string { return r.agent + ".tools." + r.tool.Name }

// mismatches collects the findings of a bind.
type mismatches struct {
	file string
	list []template.Finding
}

// at reports a mismatch at the part of ref's parameters at pointer ptr
// ("" is the tool itself).
func (m *mismatches) at(ref toolRef, ptr, format string, args ...any) {
	pos, path := ref.tool.Pos, ref.path()
	if ptr != "" {
		pos, path = ref.tool.ParameterPosition(ptr), path+".parameters"+pointerPath(ptr)
	}
	m.list = append(m.list, template.Finding{Severity: template.SeverityError, File: m.file, Path: path,
		Line: pos.Line, Column: pos.Column, Message: fmt.Sprintf(format, args...)})
}

// nowhere reports a mismatch without a place in the file.
func (m *mismatches) nowhere(format string, args ...any) {
	m.list = append(m.list, template.Finding{Severity: template.SeverityError, File: m.file, Message: fmt.Sprintf(format, args...)})
}

// err returns the *BindError of the mismatches, nil without any.
func (m *mismatches) err() error {
	if len(m.list) == 0 {
		return nil
	}
	slices.SortStableFunc(m.list, func(a, b template.Finding) int {
		if (a.Line == 0) != (b.Line == 0) {
			return cmp.Compare(b.Line, a.Line) // placed ones first
		}
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return &BindError{File: m.file, Mismatches: m.list}
}

// bind binds tools to the template's topic tools, sorted by topic.
func bind(t *Template, tools []Tool) ([]*binding, error) {
	m := &mismatches{file: t.File}
	byTopic := topicTools(t)
	for _, refs := range byTopic {
		for _, r := range refs[1:] {
			if !reflect.DeepEqual(r.tool.Parameters, refs[0].tool.Parameters) || !slices.Equal(r.tool.ParameterNames, refs[0].tool.ParameterNames) {
				m.at(r, "", "tool %q of agent %q serves topic %q like tool %q of agent %q (line %d) but with other parameters; one device function has one signature: make the parameters equal, or use another topic",
					r.tool.Name, r.agent, r.tool.Topic, refs[0].tool.Name, refs[0].agent, refs[0].tool.Pos.Line)
			}
		}
	}
	goTools := map[string]Tool{}
	for _, tl := range tools {
		switch _, dup := goTools[tl.topic]; {
		case tl.topic == "":
			m.nowhere("a Go tool has an empty topic; name the template's topic it serves")
			continue
		case dup:
			m.nowhere("two Go tools serve topic %q; give each topic one tool", tl.topic)
			continue
		case tl.call == nil:
			m.nowhere("the Go tool of topic %q has a nil function", tl.topic)
		}
		goTools[tl.topic] = tl
		if _, ok := byTopic[tl.topic]; !ok {
			m.nowhere("the Go tool of topic %q serves no topic tool of %s%s", tl.topic, t.File, topicsHint(t, byTopic, tl.topic))
		}
	}
	var out []*binding
	for _, topic := range sortedTopics(byTopic) {
		ref := byTopic[topic][0]
		tl, ok := goTools[topic]
		if !ok {
			m.at(ref, "", "topic tool %q (topic %q) has no Go tool; serve it with agent.Typed(%q, …) or agent.Untyped(%q, …)",
				ref.tool.Name, topic, topic, topic)
			continue
		}
		b, err := newBinding(ref, tl)
		if err != nil {
			m.at(ref, "", "the parameters of topic %q do not compile: %v", topic, err)
			continue
		}
		if tl.args != nil {
			checkArgs(m, ref, tl.args)
		}
		out = append(out, b)
	}
	if err := m.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// checkArgs checks a typed tool's argument type against ref's parameters.
func checkArgs(m *mismatches, ref toolRef, args reflect.Type) {
	if args.Kind() != reflect.Struct {
		m.at(ref, "", "the Go tool of topic %q takes %s; a typed tool takes a struct whose fields are the parameters", ref.tool.Topic, args)
		return
	}
	mt := &matcher{report: func(ptr, format string, a ...any) { m.at(ref, ptr, format, a...) }}
	mt.object(args, ref.tool.Parameters, "", "", typeName(args), ref.tool.ParameterNames)
}

// newBinding compiles ref's parameters for tl.
func newBinding(ref toolRef, tl Tool) (*binding, error) {
	sch, err := compileSchema(ref.tool.Parameters)
	if err != nil {
		return nil, err
	}
	props, _ := ref.tool.Parameters["properties"].(map[string]any)
	p := params{order: ref.tool.ParameterNames, declared: map[string]bool{}}
	for name := range props {
		p.declared[name] = true
	}
	if len(p.order) > 0 {
		first, _ := props[p.order[0]].(map[string]any)
		types := schemaTypes(first)
		p.firstObject = len(types) == 0 || slices.Contains(types, "object")
	}
	return &binding{topic: ref.tool.Topic, tool: tl, schema: sch, props: props, params: p}, nil
}

// topicTools returns the template's topic tools by topic, each list in
// file order: the first is the one a Go tool is checked against.
func topicTools(t *Template) map[string][]toolRef {
	out := map[string][]toolRef{}
	for _, an := range t.Names() {
		a := t.Agents[an]
		for _, tn := range a.ToolNames() {
			if tl := a.Tools[tn]; tl.Topic != "" {
				out[tl.Topic] = append(out[tl.Topic], toolRef{agent: an, tool: tl})
			}
		}
	}
	for _, refs := range out {
		slices.SortStableFunc(refs, func(a, b toolRef) int {
			return cmp.Or(cmp.Compare(a.tool.Pos.Line, b.tool.Pos.Line), cmp.Compare(a.tool.Pos.Column, b.tool.Pos.Column))
		})
	}
	return out
}

func sortedTopics(m map[string][]toolRef) []string {
	topics := make([]string, 0, len(m))
	for k := range m {
		topics = append(topics, k)
	}
	slices.Sort(topics)
	return topics
}

// topicsHint lists the template's topics for a Go tool that serves none,
// pointing at a tool named like the Go tool's topic.
func topicsHint(t *Template, byTopic map[string][]toolRef, topic string) string {
	for _, an := range t.Names() {
		if tl := t.Agents[an].Tools[topic]; tl != nil {
			if tl.Delegate != "" {
				return fmt.Sprintf(" (tool %q of agent %q delegates to agent %q: it runs no Go code)", topic, an, tl.Delegate)
			}
			return fmt.Sprintf(" (tool %q of agent %q has topic %q: name the topic, not the tool)", topic, an, tl.Topic)
		}
	}
	if len(byTopic) == 0 {
		return " (it has no topic tools)"
	}
	return " (its topics: " + strings.Join(sortedTopics(byTopic), ", ") + ")"
}

// pointerPath turns a JSON Pointer into a finding path suffix:
// /properties/city/type → .properties.city.type.
func pointerPath(ptr string) string {
	var b strings.Builder
	for _, tok := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		if _, err := strconv.Atoi(tok); err == nil {
			b.WriteString("[" + tok + "]")
			continue
		}
		b.WriteByte('.')
		b.WriteString(tok)
	}
	return b.String()
}

func itoa(i int) string { return strconv.Itoa(i) }
