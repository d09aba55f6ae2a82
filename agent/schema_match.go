// This file checks that a typed tool's Go argument struct agrees with the
// JSON Schema of its parameters in the template: every parameter has a
// field and every field a parameter (by JSON name), the types fit, and a
// parameter is required exactly when its field is not optional. Nested
// objects and the items of arrays are checked the same way.

package agent

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"time"
)

// matcher reports the disagreements of one Go type with one schema; ptr
// arguments are JSON Pointers into the schema, where the template places
// the finding.
type matcher struct {
	report func(ptr, format string, args ...any)
}

var (
	timeType            = reflect.TypeFor[time.Time]()
	jsonUnmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// object checks struct type t against an object schema s; order gives the
// order of the properties (the file's at the top, sorted below it), prefix
// the parameter names' prefix for messages ("" at the top, "location."),
// goName the struct's name in messages (its type's at the top, the path of
// the field holding it below).
func (m *matcher) object(t reflect.Type, s map[string]any, ptr, prefix, goName string, order []string) {
	props, _ := s["properties"].(map[string]any)
	if order == nil {
		order = make([]string, 0, len(props))
		for name := range props {
			order = append(order, name)
		}
		slices.Sort(order)
	}
	required := map[string]int{} // name → index in required
	if req, ok := s["required"].([]any); ok {
		for i, r := range req {
			if name, ok := r.(string); ok {
				required[name] = i
			}
		}
	}
	fields := map[string]goField{}
	for _, f := range jsonFields(t) {
		fields[f.name] = f
	}
	for _, name := range order {
		p := ptr + "/properties/" + escapePointer(name)
		f, ok := fields[name]
		if !ok {
			m.report(p, "parameter %q has no field in %s; add one tagged `json:%q`", prefix+name, goName, name)
			continue
		}
		ps, _ := props[name].(map[string]any)
		m.value(f.typ, ps, p, prefix+name, goName+"."+f.goName)
		i, req := required[name]
		switch {
		case req && f.optional:
			m.report(ptr+"/required/"+itoa(i), "parameter %q is required, but field %s.%s is optional (a pointer, or omitempty); make it a plain field, or drop %q from required",
				prefix+name, goName, f.goName, name)
		case !req && !f.optional:
			m.report(p, "parameter %q is optional, but field %s.%s is required (no pointer, no omitempty); add %q to required, or make the field a pointer or tag it omitempty",
				prefix+name, goName, f.goName, name)
		}
	}
	for _, f := range jsonFields(t) {
		if _, ok := props[f.name]; !ok {
			m.report(ptr+"/properties", "field %s.%s (json %q) is not a parameter of the tool; declare %q under properties, or tag the field `json:\"-\"`",
				goName, f.goName, f.name, prefix+f.name)
		}
	}
}

// value checks type t of the field goName against the schema s of the
// parameter name.
func (m *matcher) value(t reflect.Type, s map[string]any, ptr, name, goName string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() == reflect.Interface || (t != timeType && decodesItself(t)) {
		return // takes any value, or decides itself
	}
	types := schemaTypes(s)
	for _, typ := range types {
		if typ != "null" && !accepts(t, typ) {
			m.report(ptr+"/type", "parameter %q is %s, but field %s is %s; use %s", name, article(typ), goName, t, goTypeFor(typ))
			return
		}
	}
	switch {
	case slices.Contains(types, "object") && t.Kind() == reflect.Struct:
		m.object(t, s, ptr, name+".", goName, nil)
	case slices.Contains(types, "object") && t.Kind() == reflect.Map:
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			m.value(t.Elem(), ap, ptr+"/additionalProperties", name+"[…]", goName+"[…]")
		}
	case slices.Contains(types, "array") && !isBytes(t):
		if items, ok := s["items"].(map[string]any); ok {
			m.value(t.Elem(), items, ptr+"/items", name+"[]", goName+"[]")
		}
	}
}

// schemaTypes returns the types a schema names ("type": a name or a list),
// nil when it names none.
func schemaTypes(s map[string]any) []string {
	switch v := s["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if name, ok := x.(string); ok {
				out = append(out, name)
			}
		}
		return out
	}
	return nil
}

// accepts reports whether Go type t holds every value of JSON type typ.
func accepts(t reflect.Type, typ string) bool {
	switch typ {
	case "string":
		return t.Kind() == reflect.String || isBytes(t) || reflect.PointerTo(t).Implements(textUnmarshalerType)
	case "integer":
		return isInteger(t) || isFloat(t)
	case "number":
		return isFloat(t)
	case "boolean":
		return t.Kind() == reflect.Bool
	case "array":
		return (t.Kind() == reflect.Slice && !isBytes(t)) || t.Kind() == reflect.Array
	case "object":
		return (t.Kind() == reflect.Struct && t != timeType) || (t.Kind() == reflect.Map && t.Key().Kind() == reflect.String)
	}
	return true
}

// goTypeFor suggests Go types for a JSON type.
func goTypeFor(typ string) string {
	switch typ {
	case "string":
		return "string (or time.Time, []byte, a TextUnmarshaler)"
	case "integer":
		return "an integer type (int, int64, …)"
	case "number":
		return "float64"
	case "boolean":
		return "bool"
	case "array":
		return "a slice"
	case "object":
		return "a struct or a map[string]T"
	}
	return "any"
}

// article names a JSON type with its article: "a string", "an integer".
func article(typ string) string {
	switch typ {
	case "integer", "array", "object":
		return "an " + typ
	}
	return "a " + typ
}

// typeName names a struct type for messages: its name, or its literal.
func typeName(t reflect.Type) string {
	if t.Name() != "" {
		return t.Name()
	}
	return t.String()
}

func decodesItself(t reflect.Type) bool {
	return t.Implements(jsonUnmarshalerType) || reflect.PointerTo(t).Implements(jsonUnmarshalerType)
}

func isBytes(t reflect.Type) bool {
	return t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8
}

func isInteger(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

func isFloat(t reflect.Type) bool { return t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64 }

// escapePointer escapes a key for a JSON Pointer (RFC 6901).
func escapePointer(k string) string {
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(k)
}
