package template

import (
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// field is one key of a mapping with its value (aliases resolved).
type field struct {
	key, value *yaml.Node
}

// mapping is a YAML mapping read into fields, with merge keys ("<<")
// applied, duplicate keys reported and document order kept.
type mapping struct {
	node   *yaml.Node
	path   string
	keys   []string
	fields map[string]field
}

// mapping reads n as a mapping. It reports an error naming want (what the
// value should be) and returns nil when n is not a mapping.
func (c *checker) mapping(n *yaml.Node, path, want string) *mapping {
	n = resolve(n)
	if n == nil || n.Kind != yaml.MappingNode {
		c.errorf(n, path, "must be %s, got %s", want, describe(n))
		return nil
	}
	m := &mapping{node: n, path: path, fields: map[string]field{}}
	c.fill(m, n, true)
	return m
}

// fill adds the keys of n to m. Explicit keys (explicit == true) report
// duplicates; merged keys only fill keys that are still missing.
func (c *checker) fill(m *mapping, n *yaml.Node, explicit bool) {
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			c.errorf(k, m.path, "mapping keys must be plain strings, got %s", describe(k))
			continue
		}
		if k.ShortTag() == "!!merge" {
			merges = append(merges, v)
			continue
		}
		if prev, dup := m.fields[k.Value]; dup {
			if explicit {
				c.errorf(k, keyPath(m.path, k.Value), "duplicate key %q (first at line %d); each key may appear once", k.Value, prev.key.Line)
			}
			continue
		}
		m.keys = append(m.keys, k.Value)
		m.fields[k.Value] = field{key: k, value: v}
	}
	for _, v := range merges {
		var srcs []*yaml.Node
		if v.Kind == yaml.SequenceNode {
			for _, s := range v.Content {
				srcs = append(srcs, resolve(s))
			}
		} else {
			srcs = append(srcs, v)
		}
		for _, s := range srcs {
			if s.Kind != yaml.MappingNode {
				c.errorf(s, m.path, "a merge key (<<) must name a mapping or a list of mappings, got %s", describe(s))
				continue
			}
			c.fill(m, s, false)
		}
	}
}

// value returns the value of key, or nil when the key is absent or null.
func (m *mapping) value(key string) *yaml.Node {
	f, ok := m.fields[key]
	if !ok || isNull(f.value) {
		return nil
	}
	return f.value
}

// at returns the best node to point at for key: its value, its key when the
// value is null, or the mapping itself when the key is absent.
func (m *mapping) at(key string) *yaml.Node {
	f, ok := m.fields[key]
	switch {
	case !ok:
		return m.node
	case isNull(f.value):
		return f.key
	}
	return f.value
}

// required returns the value of key or reports that it is missing.
func (c *checker) required(m *mapping, key, hint string) *yaml.Node {
	v := m.value(key)
	if v == nil {
		msg := key + " is required"
		if hint != "" {
			msg += "; " + hint
		}
		c.errorf(m.at(key), keyPath(m.path, key), "%s", msg)
	}
	return v
}

// unknownKeys warns about every key of m that is not in allowed.
func (c *checker) unknownKeys(m *mapping, allowed []string) {
	for _, k := range m.keys {
		if slices.Contains(allowed, k) {
			continue
		}
		msg := "unknown key " + strconv.Quote(k) + " is ignored by the platform"
		if s := suggest(k, allowed); s != "" {
			msg += "; did you mean " + strconv.Quote(s) + "?"
		} else {
			msg += "; allowed: " + strings.Join(allowed, ", ")
		}
		c.warnf(m.fields[k].key, keyPath(m.path, k), "%s", msg)
	}
}

// suggest finds an allowed key that differs from k only in case, "_" or "-".
func suggest(k string, allowed []string) string {
	norm := func(s string) string {
		return strings.ToLower(strings.NewReplacer("_", "", "-", "").Replace(s))
	}
	for _, a := range allowed {
		if norm(a) == norm(k) {
			return a
		}
	}
	return ""
}

// text reads a scalar as text. Non-string scalars (numbers, booleans, dates)
// are accepted with a warning, since other YAML loaders turn them into
// numbers or dates.
func (c *checker) text(n *yaml.Node, path string) (string, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
		c.errorf(n, path, "must be a string, got %s", describe(n))
		return "", false
	}
	if t := n.ShortTag(); t != "!!str" && t != "!" {
		c.warnf(n, path, "%s is read as text; quote it to make it a string for every YAML loader", describe(n))
	}
	return n.Value, true
}

// yaml11Bools are the YAML 1.1 spellings that YAML 1.2 reads as strings.
var yaml11Bools = []string{"yes", "no", "on", "off", "y", "n", "true", "false"}

// boolean reads a YAML 1.2 boolean (true or false, unquoted).
func (c *checker) boolean(n *yaml.Node, path string) (bool, bool) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool" {
		var b bool
		if n.Decode(&b) == nil {
			return b, true
		}
	}
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" && slices.Contains(yaml11Bools, strings.ToLower(n.Value)) {
		c.errorf(n, path, "must be a boolean: write true or false; %q is a string in YAML 1.2", n.Value)
		return false, false
	}
	c.errorf(n, path, "must be a boolean (true or false), got %s", describe(n))
	return false, false
}

// integer reads a YAML integer.
func (c *checker) integer(n *yaml.Node, path string) (int64, bool) {
	n = resolve(n)
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!int" {
		var i int64
		if n.Decode(&i) == nil {
			return i, true
		}
		c.errorf(n, path, "integer %s is out of range", n.Value)
		return 0, false
	}
	if n != nil && n.Kind == yaml.ScalarNode && n.ShortTag() == "!!str" {
		if _, err := strconv.ParseInt(strings.TrimSpace(n.Value), 10, 64); err == nil {
			c.errorf(n, path, "must be an integer, got the string %q; remove the quotes", n.Value)
			return 0, false
		}
	}
	c.errorf(n, path, "must be an integer, got %s", describe(n))
	return 0, false
}

// sequence reads a YAML list and returns its items with aliases resolved.
func (c *checker) sequence(n *yaml.Node, path, want string) ([]*yaml.Node, bool) {
	n = resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode {
		c.errorf(n, path, "must be %s, got %s", want, describe(n))
		return nil, false
	}
	items := make([]*yaml.Node, len(n.Content))
	for i, it := range n.Content {
		items[i] = resolve(it)
	}
	return items, true
}

// optText reads an optional text key into dst.
func (c *checker) optText(m *mapping, key string, dst *string) {
	if v := m.value(key); v != nil {
		*dst, _ = c.text(v, keyPath(m.path, key))
	}
}

// optBool reads an optional boolean key into dst.
func (c *checker) optBool(m *mapping, key string, dst *bool) {
	if v := m.value(key); v != nil {
		*dst, _ = c.boolean(v, keyPath(m.path, key))
	}
}
