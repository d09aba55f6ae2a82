package template

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// schemaKeywords mark a parameters mapping as a JSON Schema (rather than
// the named form, name: {type, description, required}, of the platform's
// documentation) when one of them holds a non-mapping value, or when it is
// "properties".
var schemaKeywords = []string{"type", "properties", "required", "$schema", "$ref", "$defs", "allOf", "anyOf",
	"oneOf", "additionalProperties", "enum", "const"}

// parameters reads a tool's parameters in either of the two forms the
// platform accepts, a JSON Schema object or the platform documentation's
// map of parameter name to {type, description, required}, and returns the
// normalised JSON Schema object and whether n has that named form. n is
// nil when the tool has none.
func (c *checker) parameters(n *yaml.Node, path string, topic bool) (map[string]any, bool) {
	if n == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}, false
	}
	m := c.mapping(n, path, "a JSON Schema object such as {type: object, properties: {city: {type: string}}, required: [city]}")
	if m == nil {
		return nil, false
	}
	named := len(m.keys) > 0
	for _, k := range m.keys {
		v := m.fields[k].value
		if k == "properties" || (slices.Contains(schemaKeywords, k) && v.Kind != yaml.MappingNode) {
			named = false
			break
		}
	}
	var schema map[string]any
	if named {
		schema = c.namedParameters(m)
	} else if v, ok := c.toJSON(m.node, path); ok {
		schema = v.(map[string]any)
		if len(schema) == 0 {
			schema["type"] = "object"
		}
		switch typ, has := schema["type"]; {
		case !has:
			c.errorf(m.node, path, "the schema needs type: object at its top; tool arguments are always an object")
		case typ != "object":
			c.errorf(m.at("type"), keyPath(path, "type"), "type must be \"object\" (tool arguments are always an object), got %v", typ)
		}
	}
	if schema == nil {
		return nil, named
	}
	valid := c.compileSchema(schema, m, path, named)
	props, _ := schema["properties"].(map[string]any)
	if req, ok := schema["required"].([]any); ok {
		for _, r := range req {
			if s, ok := r.(string); ok && props[s] == nil {
				c.warnf(m.at("required"), keyPath(path, "required"), "required parameter %q is not declared in properties", s)
			}
		}
	}
	if _, has := props["device_key"]; has && topic {
		c.warnf(m.node, path, "the platform adds its own required integer device_key to every topic tool and strips it before the call; rename this parameter")
	}
	if !valid {
		return nil, named
	}
	if _, has := schema["properties"]; !has {
		schema["properties"] = map[string]any{}
	}
	return schema, named
}

// namedParameters converts the named form, name: {type, description,
// required: bool} into {type: object, properties, required}. Every key of
// a parameter but required is kept as JSON Schema. Parameters it cannot
// read are left out after their findings.
func (c *checker) namedParameters(m *mapping) map[string]any {
	props := map[string]any{}
	var required []any
	for _, name := range m.keys {
		p := keyPath(m.path, name)
		pm := c.mapping(m.fields[name].value, p, "a parameter mapping with type and description")
		if pm == nil {
			continue
		}
		if r := pm.value("required"); r != nil {
			if b, _ := c.boolean(r, keyPath(p, "required")); b {
				required = append(required, name)
			}
		}
		if v, ok := c.toJSON(pm.node, p); ok {
			prop := v.(map[string]any)
			delete(prop, "required")
			props[name] = prop
		}
	}
	schema := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		schema["required"] = required
	}
	return schema
}

// toJSON converts a YAML node into JSON values: map[string]any, []any,
// string, bool, int64, float64 or nil.
func (c *checker) toJSON(n *yaml.Node, path string) (any, bool) {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := c.mapping(n, path, "a mapping")
		if m == nil {
			return nil, false
		}
		out := make(map[string]any, len(m.keys))
		ok := true
		for _, k := range m.keys {
			v, vok := c.toJSON(m.fields[k].value, keyPath(path, k))
			ok = ok && vok
			out[k] = v
		}
		return out, ok
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		ok := true
		for i, it := range n.Content {
			v, vok := c.toJSON(it, indexPath(path, i))
			ok = ok && vok
			out[i] = v
		}
		return out, ok
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			return b, n.Decode(&b) == nil
		case "!!int":
			var i int64
			if n.Decode(&i) == nil {
				return i, true
			}
		case "!!float":
			var f float64
			if n.Decode(&f) == nil && !math.IsNaN(f) && !math.IsInf(f, 0) {
				return f, true
			}
			c.errorf(n, path, "%s is not a JSON number", n.Value)
			return nil, false
		}
		return n.Value, true
	}
	c.errorf(n, path, "must be a JSON value, got %s", describe(n))
	return nil, false
}

// noLoader refuses every external schema: tool parameters must be
// self-contained, and the validator must not read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external schemas are not allowed")
}

// schemaURL is the resource name the parameters are compiled under.
const schemaURL = "urn:ironflock:ai-template:parameters"

// compileSchema validates schema against the JSON Schema metaschema (draft
// 2020-12 unless it names another with $schema) and reports problems at the
// YAML node they come from.
func (c *checker) compileSchema(schema map[string]any, m *mapping, path string, named bool) (ok bool) {
	defer func() {
		if r := recover(); r != nil {
			c.errorf(m.node, path, "parameters is not a valid JSON Schema: %v", r)
			ok = false
		}
	}()
	comp := jsonschema.NewCompiler()
	comp.DefaultDraft(jsonschema.Draft2020)
	comp.UseLoader(noLoader{})
	if err := comp.AddResource(schemaURL, schema); err != nil {
		c.errorf(m.node, path, "parameters is not a valid JSON Schema: %v", err)
		return false
	}
	_, err := comp.Compile(schemaURL)
	if err == nil {
		return true
	}
	var sve *jsonschema.SchemaValidationError
	var ve *jsonschema.ValidationError
	var lue *jsonschema.LoadURLError
	switch {
	case errors.As(err, &sve) && errors.As(sve.Err, &ve):
		c.schemaFindings(ve, m, path, named)
	case errors.As(err, &lue):
		c.errorf(m.node, path, "parameters may not refer to external schemas (%s); define them under $defs", lue.URL)
	default:
		c.errorf(m.node, path, "parameters is not a valid JSON Schema: %s", strings.ReplaceAll(err.Error(), schemaURL, ""))
	}
	return false
}

// schemaFindings turns metaschema errors into findings, one per location.
func (c *checker) schemaFindings(ve *jsonschema.ValidationError, m *mapping, path string, named bool) {
	msgs := map[string][]string{}
	var locs []string
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if len(u.Errors) == 0 && u.Error != nil {
			if _, seen := msgs[u.InstanceLocation]; !seen {
				locs = append(locs, u.InstanceLocation)
			}
			if len(msgs[u.InstanceLocation]) == 0 {
				// The first message is the most telling one; the others
				// repeat it for the other branches of the metaschema.
				msgs[u.InstanceLocation] = append(msgs[u.InstanceLocation], u.Error.String())
			}
		}
		for _, e := range u.Errors {
			walk(e)
		}
	}
	walk(*ve.DetailedOutput())
	for _, loc := range locs {
		keys := pointerKeys(loc)
		if named && len(keys) > 0 && keys[0] == "properties" {
			keys = keys[1:]
		}
		n, p := m.node, path
		for _, k := range keys {
			next := child(n, k)
			if next == nil {
				break
			}
			if n.Kind == yaml.SequenceNode {
				p += "[" + k + "]"
			} else {
				p = keyPath(p, k)
			}
			n = next
		}
		c.errorf(n, p, "not a valid JSON Schema: %s", strings.Join(msgs[loc], "; "))
	}
}

// child returns the value under key k of a mapping, or item k of a list.
func child(n *yaml.Node, k string) *yaml.Node {
	n = resolve(n)
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if resolve(n.Content[i]).Value == k {
				return resolve(n.Content[i+1])
			}
		}
	case yaml.SequenceNode:
		if i, err := strconv.Atoi(k); err == nil && allDigits(k) && i < len(n.Content) {
			return resolve(n.Content[i])
		}
	}
	return nil
}

// pointerKeys splits a JSON pointer ("/properties/a~1b") into keys.
func pointerKeys(ptr string) []string {
	if ptr == "" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		parts[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(p)
	}
	return parts
}
