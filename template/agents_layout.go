// This file holds the layout of an agent template's tools as the file
// wrote them: where each tool and each part of its parameters' schema
// stands (Position), and the order of the parameters. Package agent needs
// both: positions to report a Go tool that disagrees with the template,
// the order to read arguments passed as positional values.

package template

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Position is a place in a template file: a 1-based line and column, zero
// when unknown.
type Position struct {
	Line, Column int
}

// positionOf returns the position of a YAML node (zero for nil).
func positionOf(n *yaml.Node) Position {
	if n == nil {
		return Position{}
	}
	return Position{Line: n.Line, Column: n.Column}
}

// ParameterPosition returns where the part of Parameters at pointer (a
// JSON Pointer into the normalised schema, such as
// "/properties/city/type"; "" is the schema itself) stands in the file. A
// part the file does not write itself (the "type: object" added to the
// named form, a default) takes the position of the nearest part that it
// does, and at last the tool's.
func (t *Tool) ParameterPosition(pointer string) Position {
	for {
		if p, ok := t.ParameterPositions[pointer]; ok {
			return p
		}
		i := strings.LastIndexByte(pointer, '/')
		if i < 0 {
			return t.Pos
		}
		pointer = pointer[:i]
	}
}

// paramLayout records where the parts of a tool's parameters stand and
// the order of its parameters. n is the parameters mapping (nil when the
// tool has none); schema the normalised schema read from it; named tells
// that n is the named form, name: {type, description, required}, of the
// platform's documentation.
func (t *Tool) paramLayout(n *yaml.Node, schema map[string]any, named bool) {
	t.ParameterPositions = map[string]Position{}
	if n == nil || schema == nil {
		return
	}
	props, _ := schema["properties"].(map[string]any)
	var order []string
	if named {
		t.ParameterPositions[""] = positionOf(n)
		for _, f := range layoutFields(n) {
			ptr := "/properties/" + escapePointer(f.name)
			t.ParameterPositions[ptr] = positionOf(f.key)
			recordLayout(f.value, ptr, t.ParameterPositions)
			order = append(order, f.name)
		}
	} else {
		recordLayout(n, "", t.ParameterPositions)
		for _, f := range layoutFields(n) {
			if f.name == "properties" {
				for _, p := range layoutFields(f.value) {
					order = append(order, p.name)
				}
			}
		}
	}
	for _, name := range order {
		if _, ok := props[name]; ok {
			t.ParameterNames = append(t.ParameterNames, name)
		}
	}
}

// layoutField is one entry of a mapping for the layout.
type layoutField struct {
	name       string
	key, value *yaml.Node
}

// layoutFields lists the entries of a mapping node in document order,
// merge keys applied; nil for anything else. Problems were reported when
// the schema was read, so none is reported here.
func layoutFields(n *yaml.Node) []layoutField {
	c := &checker{}
	m := c.mapping(n, "", "")
	if m == nil {
		return nil
	}
	out := make([]layoutField, len(m.keys))
	for i, k := range m.keys {
		out[i] = layoutField{name: k, key: m.fields[k].key, value: m.fields[k].value}
	}
	return out
}

// recordLayout records the position of every mapping key (and list item)
// under n by its JSON Pointer below ptr; n itself is recorded at ptr when
// ptr is not recorded yet.
func recordLayout(n *yaml.Node, ptr string, into map[string]Position) {
	n = resolve(n)
	if n == nil {
		return
	}
	if _, ok := into[ptr]; !ok {
		into[ptr] = positionOf(n)
	}
	if len(into) > maxExpandedNodes {
		return
	}
	switch n.Kind {
	case yaml.MappingNode:
		for _, f := range layoutFields(n) {
			p := ptr + "/" + escapePointer(f.name)
			into[p] = positionOf(f.key)
			recordLayout(f.value, p, into)
		}
	case yaml.SequenceNode:
		for i, it := range n.Content {
			recordLayout(it, ptr+"/"+strconv.Itoa(i), into)
		}
	}
}

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
