// This file finds where a template writes a value, so that a refusal of
// the generator (two ids becoming one Go name) names its line and column
// as the template's own findings do.

package flockgen

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// source is one template file: its path as shown in messages and its
// parsed YAML, to locate values in.
type source struct {
	path string
	root *yaml.Node
}

// parseSource parses src for locating; a parse error leaves it without a
// root (the template package has accepted the file, so it does not
// happen).
func parseSource(path string, src []byte) source {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return source{path: path}
	}
	return source{path: path, root: &doc}
}

// at returns "file:line:col: " for the value at path ("data.tables[2]
// .columns[0].id"; keys of agent templates may hold dots, so keys are
// given as separate elements), or "file: " when it cannot be found.
func (s source) at(keys ...any) string {
	n := s.root
	for n != nil && n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range keys {
		n = resolve(n)
		if n == nil {
			break
		}
		switch k := k.(type) {
		case string:
			n = mapValue(n, k)
		case int:
			if n.Kind != yaml.SequenceNode || k >= len(n.Content) {
				n = nil
			} else {
				n = n.Content[k]
			}
		}
	}
	if n == nil {
		return s.path + ": "
	}
	return fmt.Sprintf("%s:%d:%d: ", s.path, n.Line, n.Column)
}

// resolve follows aliases.
func resolve(n *yaml.Node) *yaml.Node {
	for n != nil && n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	return n
}

// mapValue returns the value of key in mapping n, nil when absent.
func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// keyPath renders keys as a template finding path: data.tables[2].id.
func keyPath(keys ...any) string {
	var b strings.Builder
	for _, k := range keys {
		switch k := k.(type) {
		case int:
			b.WriteString("[" + strconv.Itoa(k) + "]")
		case string:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(k)
		}
	}
	return b.String()
}
