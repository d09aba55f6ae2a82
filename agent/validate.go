// This file validates an invocation's argument object against the tool's
// JSON Schema (santhosh-tekuri/jsonschema) and turns a failure into the
// short text of the refusal, which the model reads: which parameter, what
// was expected.

package agent

import (
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// schemaURL is the resource name a tool's parameters are compiled under.
const schemaURL = "urn:ironflock:agent:parameters"

// noLoader refuses external schemas: parameters are self-contained (the
// template refuses references to other files), and validation must not
// read files or the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, errors.New("external schemas are not allowed")
}

// compileSchema compiles a tool's parameters, asserting formats
// (date-time, email, …).
func compileSchema(schema map[string]any) (*jsonschema.Schema, error) {
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(noLoader{})
	c.AssertFormat()
	if err := c.AddResource(schemaURL, schema); err != nil {
		return nil, err
	}
	return c.Compile(schemaURL)
}

// validate checks an argument object against sch and returns the text of
// the refusal, "" when the arguments are valid.
func validate(sch *jsonschema.Schema, props map[string]any, obj map[string]any) string {
	err := sch.Validate(jsonValue(obj))
	if err == nil {
		return ""
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return "invalid arguments: " + err.Error()
	}
	var msgs []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			msgs = append(msgs, leafMessages(e, props)...)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	slices.Sort(msgs)
	return "invalid arguments: " + strings.Join(slices.Compact(msgs), "; ")
}

// leafMessages renders one failed keyword.
func leafMessages(e *jsonschema.ValidationError, props map[string]any) []string {
	loc := e.InstanceLocation
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		var out []string
		for _, name := range k.Missing {
			msg := fmt.Sprintf("missing required parameter %q", location(append(slices.Clone(loc), name)))
			if len(loc) == 0 {
				msg += hint(props[name])
			}
			out = append(out, msg)
		}
		return out
	case *kind.AdditionalProperties:
		var out []string
		for _, name := range k.Properties {
			msg := fmt.Sprintf("unknown parameter %q", location(append(slices.Clone(loc), name)))
			if len(loc) == 0 {
				msg += " (the parameters are " + strings.Join(sortedKeys(props), ", ") + ")"
			}
			out = append(out, msg)
		}
		return out
	}
	text := strings.TrimPrefix((&jsonschema.ValidationError{ErrorKind: e.ErrorKind}).Error(), "at '': ")
	if len(loc) == 0 {
		return []string{"the arguments: " + text}
	}
	return []string{fmt.Sprintf("parameter %q: %s", location(loc), text)}
}

// hint describes what a missing parameter takes: " (a string: the city)".
func hint(prop any) string {
	s, _ := prop.(map[string]any)
	var parts []string
	if types := schemaTypes(s); len(types) > 0 {
		ts := make([]string, len(types))
		for i, t := range types {
			ts[i] = article(t)
		}
		parts = append(parts, strings.Join(ts, " or "))
	}
	if d, ok := s["description"].(string); ok && d != "" {
		if utf8.RuneCountInString(d) > 60 {
			d = string([]rune(d)[:60]) + "…"
		}
		parts = append(parts, d)
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ": ") + ")"
}

// location renders an instance location: city, location.lat, items[2].
func location(tokens []string) string {
	var b strings.Builder
	for i, t := range tokens {
		if _, err := strconv.Atoi(t); err == nil && i > 0 {
			b.WriteString("[" + t + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

// jsonValue returns v with binary values as base64 text, the JSON form
// the schema validator understands.
func jsonValue(v any) any {
	switch x := v.(type) {
	case []byte:
		return base64.StdEncoding.EncodeToString(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = jsonValue(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
